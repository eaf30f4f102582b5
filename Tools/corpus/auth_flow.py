#!/usr/bin/env python3
"""Writes Spec/corpus/auth/flow.json (AUTH-18 ... AUTH-21): the app's sign-in flow, scripted.

Every expected list of states is read off AUTH-19's table by hand; a move the table does not have
is `invalid_transition` (AUTH-20), a stored state that is none of AUTH-18's `invalid_state`
(AUTH-21).
"""

from corpus_file import write_cases, command_line

command_line(__doc__)

cases = []


def ev(name, has_goals=None):
    event = {'event': name}
    if has_goals is not None:
        event['hasGoals'] = has_goals
    return event


def flow(comment, rules, events, states=None, start=None, error=None):
    inp = {'events': events}
    if start is not None:
        inp['start'] = start
    case = {'id': 'flow-%03d' % (len(cases) + 1), 'comment': comment, 'rules': rules, 'flags': ['Required'],
            'input': inp}
    if error:
        case['result'] = 'invalid'
        case['error'] = {'code': error}
    else:
        case['result'] = 'valid'
        case['expected'] = {'states': states, 'stored': {'state': states[-1] if states else (start or {'state': 'signedOut'})['state']}}
    cases.append(case)


flow('a new install is signed out', ['AUTH-18', 'AUTH-21'], [], [])
flow('onboarding, sign-in without goals, the first goal', ['AUTH-19'],
     [ev('startOnboarding'), ev('continue'), ev('signedIn', False), ev('createdFirstGoal')],
     ['pitch', 'signInChoices', 'welcome', 'main'])
flow('a returning person with goals goes straight to the tabs', ['AUTH-19'],
     [ev('startOnboarding'), ev('continue'), ev('signedIn', True)], ['pitch', 'signInChoices', 'main'])
flow('signedIn without hasGoals means no goals', ['AUTH-19'],
     [ev('startOnboarding'), ev('continue'), ev('signedIn')], ['pitch', 'signInChoices', 'welcome'])
flow('back from the sign-in choices to the pitch, and on again', ['AUTH-19'],
     [ev('startOnboarding'), ev('continue'), ev('back'), ev('continue')], ['pitch', 'signInChoices', 'pitch', 'signInChoices'])
flow('cancelling onboarding at the pitch', ['AUTH-19'], [ev('startOnboarding'), ev('cancelOnboarding')], ['pitch', 'signedOut'])
flow('cancelling onboarding at the choices', ['AUTH-19'],
     [ev('startOnboarding'), ev('continue'), ev('cancelOnboarding')], ['pitch', 'signInChoices', 'signedOut'])
flow('signing out from the tabs', ['AUTH-19'], [ev('signOut')], ['signedOut'], start={'state': 'main'})
flow('signing out from the welcome', ['AUTH-19'], [ev('signOut')], ['signedOut'], start={'state': 'welcome'})
flow('deleting the account from the tabs', ['AUTH-19'], [ev('deleteAccount')], ['signedOut'], start={'state': 'main'})
flow('deleting the account from the welcome', ['AUTH-19'], [ev('deleteAccount')], ['signedOut'], start={'state': 'welcome'})
flow('after signing out, onboarding starts again', ['AUTH-19'],
     [ev('signOut'), ev('startOnboarding'), ev('continue'), ev('signedIn', True)], ['signedOut', 'pitch', 'signInChoices', 'main'],
     start={'state': 'main'})
flow('an onboarding interrupted at the choices resumes there', ['AUTH-21'], [ev('signedIn', False)], ['welcome'],
     start={'state': 'signInChoices'})
flow('restored on the pitch, nothing happens yet', ['AUTH-21'], [], [], start={'state': 'pitch'})
# AUTH-20: illegal moves
for comment, start, events in [
    ('signed out cannot sign in without onboarding', 'signedOut', [ev('signedIn', True)]),
    ('signed out cannot reach the tabs by a first goal', 'signedOut', [ev('createdFirstGoal')]),
    ('signed out cannot sign out', 'signedOut', [ev('signOut')]),
    ('signed out cannot delete an account', 'signedOut', [ev('deleteAccount')]),
    ('the pitch cannot sign in before the choices', 'pitch', [ev('signedIn', False)]),
    ('the pitch has no back', 'pitch', [ev('back')]),
    ('the choices cannot continue further', 'signInChoices', [ev('continue')]),
    ('onboarding cannot start twice', 'pitch', [ev('startOnboarding')]),
    ('the welcome cannot sign in again', 'welcome', [ev('signedIn', True)]),
    ('the tabs have no first goal to create', 'main', [ev('createdFirstGoal')]),
    ('the tabs cannot cancel onboarding', 'main', [ev('cancelOnboarding')]),
    ('an event the table does not have', 'signedOut', [ev('skipToMain')]),
    ('an illegal move in the middle of a script', 'signedOut', [ev('startOnboarding'), ev('continue'), ev('createdFirstGoal')]),
]:
    flow(comment, ['AUTH-20'], events, start={'state': start}, error='invalid_transition')
# AUTH-21: stored forms
for comment, start in [
    ('a stored state of another name', {'state': 'onboarding'}),
    ('a stored state in other capitals', {'state': 'Main'}),
    ('a stored object without a name', {}),
]:
    flow(comment, ['AUTH-21'], [], start=start, error='invalid_state')

write_cases('auth', 'flow.json', 'auth.flow',
            'The sign-in flow: from `start` (a stored state, `{"state": NAME}`; signedOut when absent) through `events` (`{"event": NAME}`, and `hasGoals`, false when absent, for signedIn); the output is the state after each event and the stored form at the end.',
            cases, 'flow')
print(len(cases))
