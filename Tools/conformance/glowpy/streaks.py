"""Section 2 of the spec (Spec/streaks.md): what is due when, how each Day went, and the streaks,
forgiveness, consistency, milestones, strength (STREAK-27 ... STREAK-30) and Today and Overview
answers that follow.

Everything here is computed on Day numbers (MODEL-1, MODEL-2). A goal's life may span the whole
supported range (0001-01-01 to 9999-12-31: 3.6 million Days), so nothing visits every Day. The
life is cut into *pieces*, each under one schedule rule: a `DayPiece` (daily, weekdays, every N
days) holds only Days in the life, a `PeriodPiece` (N per week or month) is the span its calendar
periods are cut to (STREAK-12). What happens on a Day is decided by its entry (STREAK-3); Days
without one behave alike, so they are counted arithmetically, and only the Days with entries,
the Days asked about, and the calendar periods around them are judged one by one. Strength
follows the same judgement: its units without entries are missed (value 0), and a run of them
needs only its count, since S stays 0 once it gets there.
"""
import bisect
import datetime as dt
import math
from collections import defaultdict

from . import checkins
from . import model as m
from .errors import Failure

DEFAULT_GOAL_ID = '01938a6e-7c00-7abc-8def-0123456789ab'      # 2.9: the compact input's defaults
DEFAULT_DEVICE = '00000000-0000-0000-0000-000000000001'        # 2.9: a check-in's default device
DEFAULT_INSTANT = '2000-01-01T00:00:00.000Z'
DEFAULT_TITLE = 'Goal'                                         # 2.9: the default `title`
MILESTONES = [3, 7, 14, 21, 30, 50, 100, 200, 365, 500, 1000]  # STREAK-20
DAY_RULES = ('daily', 'weekdays', 'everyNDays')
WINDOWS = [('last7', 7), ('last30', 30), ('last365', 365)]    # STREAK-18
INT64_MAX = (1 << 63) - 1                                      # STREAK-6: the bound of fractions and sums


def fraction(amount, target):
    """STREAK-6: floor(1000 × amount / target), at least 1 when the amount is positive, at most 2^63 − 1."""
    if amount <= 0:
        return 0
    return min(INT64_MAX, max(1, 1000 * amount // target))


def saturating_add(total, amount):
    """STREAK-6: one-off progress is summed with saturation at ±(2^63 − 1)."""
    return max(-INT64_MAX, min(INT64_MAX, total + amount))


def partial(f):
    """STREAK-9: a partial status is written `partial:F`."""
    return 'partial:%d' % f


# ---- Strength arithmetic (STREAK-27, STREAK-28)

FULL = 1 << 30                                                 # STREAK-27: S runs from 0 to 2^30
LADDER = [1 << 29]                                             # STREAK-28 step 2: C_0 = 2^29,
for _ in range(30):                                            # C_i = isqrt(C_(i-1) × 2^30), i = 1 … 30
    LADDER.append(math.isqrt(LADDER[-1] * FULL))
MULTIPLIERS = {}                                               # weight (a, b) -> M, computed once each


def weight(rule):
    """STREAK-28: the Days one unit stands for times its frequency, as a/b in lowest terms."""
    t = rule['type']
    a, b = {'daily': (1, 1), 'weekdays': (7, len(rule.get('weekdays') or ())), 'everyNDays': (rule.get('interval'), 1),
            'timesPerWeek': (7 * (rule.get('times') or 0), 1), 'timesPerMonth': (30 * (rule.get('times') or 0), 1)}[t]
    g = math.gcd(a, b)
    return a // g, b // g


def multiplier(rule):
    """STREAK-28: M = 2^30 × 2^(−√R / 13) in integers: E = isqrt(floor(2^60 a / (169 b))), then
    2^30 halved E div 2^30 times and multiplied down the ladder for each set bit 29 … 0 of E."""
    key = weight(rule)
    if key not in MULTIPLIERS:
        a, b = key
        e = math.isqrt((1 << 60) * a // (169 * b))
        m_ = FULL >> (e >> 30)
        for i in range(1, 31):
            if e >> (30 - i) & 1:
                m_ = m_ * LADDER[i] // FULL
        MULTIPLIERS[key] = m_
    return MULTIPLIERS[key]


class Strength:
    """STREAK-27 / STREAK-29: S after each strength unit, fed in Day order; the strength through
    today − 7 and today − 30 kept as they are passed, and the changes of the units of the last 30 Days."""

    def __init__(self, today):
        self.today, self.score = today, 0
        self.marks = {today - 7: None, today - 30: None}       # the strength through these Days
        self.changes = []                                      # (Day, S before, S after, value) on today − 29 … today

    def passing(self, d):
        """Units on d are coming: the strength through every mark before d is now known."""
        for mark, value in self.marks.items():
            if value is None and mark < d:
                self.marks[mark] = self.score

    def unit(self, d, value, rule):
        """A unit of value v (thousandths) on Day d under `rule`:
        S = floor((S × M + V × (2^30 − M)) / 2^30), V = floor(v × 2^30 / 1000)."""
        self.passing(d)
        before, m_ = self.score, multiplier(rule)
        self.score = (before * m_ + value * FULL // 1000 * (FULL - m_)) // FULL
        if d >= self.today - 29:
            self.changes.append((d, before, self.score, value))

    def zeros(self, first, count, rule):
        """`count` units of value 0 under `rule` from Day `first` on, all before today − 30: only
        their number matters, and once S is 0 it stays 0."""
        self.passing(first)
        m_ = multiplier(rule) if count > 0 and self.score else 0
        while count > 0 and self.score:
            self.score = self.score * m_ // FULL
            count -= 1

    def answer(self):
        self.passing(m.MAX_DAY + 1)
        reported = lambda s: 1000 * s // FULL                  # noqa: E731
        # STREAK-29: the lift (greatest positive reported change) then the drop (most negative), of
        # equals the later Day; a unit whose reported change is 0 is neither.
        moved = [(d, after - before, reported(after) - reported(before), value)
                 for d, before, after, value in self.changes]
        lifts = [c for c in moved if c[2] > 0]
        drops = [c for c in moved if c[2] < 0]
        moves = ([max(lifts, key=lambda c: (c[2], c[0]))] if lifts else []) + \
                ([min(drops, key=lambda c: (c[2], -c[0]))] if drops else [])
        return {'score': self.score, 'thousandths': reported(self.score),
                'change7': reported(self.score) - reported(self.marks[self.today - 7]),
                'change30': reported(self.score) - reported(self.marks[self.today - 30]),
                'moves': [{'day': m.day_text(d), 'change': c, 'reported': r, 'value': v} for d, c, r, v in moves]}


# ---- Calendar periods (MODEL-13, MODEL-32)

class Calendar:
    """The calendar weeks (by a week start) or months, numbered so that ranges can be counted."""

    def __init__(self, kind, week_start='monday'):
        self.kind = kind
        self.anchor = m.week_start_of(0, week_start)          # a Day on which a week begins

    def index(self, d):
        if self.kind == 'week':
            return (d - self.anchor) // 7
        date = m.EPOCH + dt.timedelta(days=d)
        return date.year * 12 + date.month - 1

    def first(self, i):
        if self.kind == 'week':
            return self.anchor + 7 * i
        return (dt.date(i // 12, i % 12 + 1, 1) - m.EPOCH).days

    def last(self, i):
        if self.kind == 'week':
            return self.anchor + 7 * i + 6
        return m.MAX_DAY if i + 1 > 9999 * 12 + 11 else self.first(i + 1) - 1

    def of(self, d):
        i = self.index(d)
        return self.first(i), self.last(i)


# ---- The goal, its life and its pieces (STREAK-1, STREAK-4, MODEL-30)

class Goal:
    """A goal read from the compact input of 2.9, with Days as numbers and amounts as thousandths."""

    def __init__(self, raw, path='$.goal'):
        g = full_goal(raw, path)
        self.id, self.deleted = g['id'], g['deleted']
        self.created = m.parse_instant(g['createdAt'])
        self.kind = m.parsed_kind(g['kind'])
        self.start = m.parse_day(g['startDay'])
        self.end = m.parse_day(g['endDay']) if 'endDay' in g else m.MAX_DAY
        self.archived = archive_unions(g['archiveHistory'])
        self.schedule = [(m.parse_day(e['effective']), e['rule']) for e in g.get('schedule', [])]
        self.forgiveness = g.get('forgiveness')
        self.recurring = m.recurring(self.kind)

    def in_life(self, d):
        """STREAK-1: not deleted, within start and end, and not in an archive span."""
        if self.deleted or not self.start <= d <= self.end:
            return False
        return not any(f <= d <= u for f, u in self.archived)

    def archived_in(self, a, b):
        """How many Days of [a, b] are archived."""
        return sum(max(0, min(b, u) - max(a, f) + 1) for f, u in self.archived)

    def spans(self):
        """STREAK-4 / STREAK-12: each schedule entry's Days, from its effective Day to the day before
        the next entry's, cut to the start and end Days: (first, last, rule, effective)."""
        out = []
        for i, (effective, rule) in enumerate(self.schedule):
            first = max(effective if i else m.MIN_DAY, self.start)
            last = min(self.schedule[i + 1][0] - 1 if i + 1 < len(self.schedule) else m.MAX_DAY, self.end)
            if first <= last:
                out.append((first, last, rule, effective))
        return out

    def life_parts(self, first, last):
        """[first, last] without its archived Days, as intervals."""
        parts, d = [], first
        for f, u in self.archived:
            if u < d or f > last:
                continue
            if f > d:
                parts.append((d, f - 1))
            d = u + 1
        if d <= last:
            parts.append((d, last))
        return parts


def full_goal(raw, path='$.goal'):
    """A goal of the compact input of 2.9 in its canonical JSON form (MODEL-40), the defaults filled in."""
    full = dict(raw)
    full.setdefault('id', DEFAULT_GOAL_ID)
    full.setdefault('title', DEFAULT_TITLE)
    full.setdefault('createdAt', DEFAULT_INSTANT)
    full.setdefault('modifiedAt', full['createdAt'])         # 2.9: modifiedAt defaults to the goal's createdAt
    if isinstance(full.get('schedule'), dict):              # 2.9: a single rule, effective on the start Day
        full['schedule'] = [{'effective': full.get('startDay'), 'rule': full['schedule']}]
    return m.goal_json(full, path)


def archive_unions(history):
    """MODEL-47: the archived Days as inclusive intervals, touching spans merged."""
    unions = []
    for a in history:
        f = m.parse_day(a['from'])
        u = m.parse_day(a['until']) - 1 if 'until' in a else m.MAX_DAY
        if unions and f <= unions[-1][1] + 1:
            unions[-1] = (unions[-1][0], max(unions[-1][1], u))
        else:
            unions.append((f, u))
    return unions


class DayPiece:
    """Days in the life under one day-based rule (STREAK-2): every Day of [first, last] is in the life."""

    def __init__(self, first, last, rule, effective):
        self.first, self.last, self.rule, self.effective = first, last, rule, effective

    def clip(self, a, b):
        return max(a, self.first), min(b, self.last)

    def due(self, d):
        """STREAK-2: daily; weekdays in the set; every N Days from the entry's effective Day (MODEL-31)."""
        if not self.first <= d <= self.last:
            return False
        t = self.rule['type']
        if t == 'daily':
            return True
        if t == 'weekdays':
            return m.weekday(d) in self.rule['weekdays']
        return (d - self.effective) % self.rule['interval'] == 0

    def due_count(self, a, b):
        """How many due Days [a, b] holds, counted, not visited."""
        a, b = self.clip(a, b)
        if a > b:
            return 0
        t = self.rule['type']
        if t == 'daily':
            return b - a + 1
        if t == 'weekdays':
            return sum(progression_count(a + (m.WEEKDAYS.index(w) - m.weekday_index(a)) % 7, b, 7) for w in self.rule['weekdays'])
        n = self.rule['interval']
        return progression_count(a + (self.effective - a) % n, b, n)

    def most_per_period(self, kind):
        """The most due Days one calendar week or month can hold under this rule."""
        days = 7 if kind == 'week' else 31
        t = self.rule['type']
        if t == 'daily':
            return days
        if t == 'weekdays':
            return len(self.rule['weekdays']) * (1 if kind == 'week' else 5)
        return -(-days // self.rule['interval'])


def progression_count(first, last, step):
    return 0 if first > last else (last - first) // step + 1


class PeriodPiece:
    """A span under one N-per-period rule (STREAK-12); its calendar periods are cut to it."""

    def __init__(self, first, last, rule, week_start):
        self.first, self.last, self.times, self.rule = first, last, rule['times'], rule
        self.calendar = Calendar('week' if rule['type'] == 'timesPerWeek' else 'month', week_start)

    def cut(self, i):
        return max(self.calendar.first(i), self.first), min(self.calendar.last(i), self.last)

    def index(self, d):
        return self.calendar.index(d)


# ---- Check-ins (STREAK-3) and today (STREAK-24)

def read_checkins(raw, profile):
    """2.9: compact check-ins (MODEL-55), one device's tap each (`deviceID`, by default
    DEFAULT_DEVICE), undone when `deleted`. `modifiedAt` defaults to 2000-01-01 plus the input's
    index in milliseconds, so later inputs are later. Given `day`, the tap was recorded at
    `modifiedAt`; given `at`, at that instant, whose Day is computed under the zone then in force
    and the profile's day start (STREAK-24). A `day` input names no zone; it is recorded in UTC
    (the zone only breaks ties between versions of one tap, MODEL-51)."""
    out = []
    base = m.parse_instant(DEFAULT_INSTANT)
    for i, c in enumerate(raw):
        path = f'$.checkIns[{i}]'
        modified = m.scalar(m.parse_instant, c['modifiedAt'], path + '.modifiedAt') if 'modifiedAt' in c else base + i
        if 'day' in c:
            day, zone, at = m.scalar(m.parse_day, c['day'], path + '.day'), 'UTC', modified
        else:
            zone = m.scalar(m.check_zone, c['timeZone'], path + '.timeZone')
            at = m.scalar(m.parse_instant, c['at'], path + '.at')
            day = m.day_of(zone, profile['dayStartMinutes'], at)
        out.append({'goalID': m.parse_uuid(c.get('goalID', DEFAULT_GOAL_ID)), 'day': day, 'log': m.log_json(c['log'], path + '.log'),
                    'deleted': bool(c.get('deleted', False)), 'modifiedAt': modified, 'at': at, 'timeZone': zone,
                    'deviceID': m.scalar(m.parse_uuid, c.get('deviceID', DEFAULT_DEVICE), path + '.deviceID')})
    return out


def merged(candidates):
    """STREAK-3: the check-ins of one Day merged into one (MODEL-54), each read as the taps of its
    compact form (MODEL-55)."""
    return checkins.merge_all([record_of(c) for c in candidates])


def record_of(c):
    """A check-in of the compact input as the canonical check-in its compact form is (MODEL-55)."""
    taps = checkins.compact_taps(c['deviceID'], c['timeZone'], c['log'], c['at'], c['at'], c['modifiedAt'], c['deleted'])
    return checkins.make(c['goalID'], m.day_text(c['day']), taps, None, None, c['modifiedAt'])


def read_today(inp, profile):
    """STREAK-24: `today`, or the Day of `now` under the profile's day boundary."""
    if 'today' in inp:
        return m.scalar(m.parse_day, inp['today'], '$.today')
    now = m.scalar(m.parse_instant, inp['now'], '$.now')
    return m.day_of(profile['timeZone'], profile['dayStartMinutes'], now)


def fits_type(kind, log):
    """STREAK-8: whether a log's type fits the kind. Checklist items are not a question of fit:
    items the goal no longer has are ignored (STREAK-5)."""
    if log['type'] == 'items':
        return kind['type'] == 'subgoals'
    return m.fits(kind, log)


class Unit:
    """STREAK-14: a counting unit, a done due Day or a met period, from `first` (its first done Day)
    to `last` (the Day it was done or its target reached)."""

    def __init__(self, first, last):
        self.first, self.last = first, last


class Period:
    """STREAK-12: one calendar period of a PeriodPiece, judged."""

    def __init__(self, first, last, target, done, skipped, today):
        self.first, self.last, self.target = first, last, target
        self.done, self.skipped = done, skipped
        self.open = last >= today
        self.met = len(done) >= target
        self.reached = done[target - 1] if self.met else None
        self.excused = not self.met and not self.open and bool(skipped) and len(done) + len(skipped) >= target
        self.missed = not self.met and not self.open and not self.excused


# ---- Judging one goal

class Evaluation:
    """One goal judged on one today (sections 2.1 ... 2.5)."""

    def __init__(self, goal, checkins, week_start, today):
        self.goal, self.week_start, self.today = goal, week_start, today
        self.entries = self.find_entries([c for c in checkins if c['goalID'] == goal.id])
        self.entry_days = sorted(self.entries)
        self.day_pieces, self.period_pieces = [], []
        for first, last, rule, effective in goal.spans():
            if rule['type'] in DAY_RULES:
                self.day_pieces += [DayPiece(a, b, rule, effective) for a, b in goal.life_parts(first, last)]
            else:
                self.period_pieces.append(PeriodPiece(first, last, rule, week_start))
        forgiveness = goal.forgiveness
        self.allowance = forgiveness['allowance'] if forgiveness else 0
        self.forgiveness_calendar = Calendar(forgiveness['period'], week_start) if forgiveness else None
        self.judged_periods = {}
        if not goal.recurring:
            self.judge_one_off()

    # -- STREAK-3: the entries

    def find_entries(self, records):
        """The check-ins of each Day merged into one (MODEL-54): when it is undone (MODEL-36) the
        Day has no entry, otherwise its log is the Day's entry if the Day is in the life and not
        after today. A Day's only check-in needs no merge: its compact form's taps add up to its own
        log (MODEL-55)."""
        by_day = defaultdict(list)
        for c in records:
            by_day[c['day']].append(c)
        entries = {}
        for day, candidates in by_day.items():
            entry = candidates[0] if len(candidates) == 1 else merged(candidates)
            if not entry['deleted'] and day <= self.today and self.goal.in_life(day):
                entries[day] = entry
        return entries

    def entries_in(self, a, b):
        return self.entry_days[bisect.bisect_left(self.entry_days, a):bisect.bisect_right(self.entry_days, b)]

    # -- STREAK-5 ... STREAK-8: the outcome of a Day

    def outcome(self, d):
        """The outcome of Day d's entry: ('done' | 'partial' | 'skipped' | 'failed' | 'none', fraction)."""
        entry = self.entries.get(d)
        if entry is None:
            return 'none', 0
        kind, log = self.goal.kind, entry['log']
        if not fits_type(kind, log):                           # STREAK-8: a log of another type counts as none
            return 'none', 0
        if log['type'] == 'skip':
            return 'skipped', 0
        if kind['type'] == 'streak':
            return 'done', 1000
        if kind['type'] == 'tally':
            return self.graded(log['count'], kind['dailyTarget'])
        if kind['type'] == 'subgoals':                         # STREAK-5: only current items, each once
            checked = len(set(log['items']) & {item['id'] for item in kind['items']})
            return self.graded(checked, len(kind['items']))
        return self.value_outcome(m.parse_amount(log['value']))

    @staticmethod
    def graded(amount, target):
        if amount >= target:
            return 'done', 1000
        if amount > 0:
            return 'partial', fraction(amount, target)
        return 'none', 0

    def value_outcome(self, value):
        """STREAK-7: no target is done; at least a: done, partly done above 0, failed at or below 0;
        at most a: done or failed."""
        target = self.goal.kind.get('target')
        if target is None:
            return 'done', 1000
        if target['comparison'] == 'atMost':
            return ('done', 1000) if value <= target['amount'] else ('failed', 0)
        if value >= target['amount']:
            return 'done', 1000
        return ('partial', fraction(value, target['amount'])) if value > 0 else ('failed', 0)

    # -- Pieces

    def day_piece(self, d):
        for piece in self.day_pieces:
            if piece.first <= d <= piece.last:
                return piece
        return None

    def period_piece(self, d):
        for piece in self.period_pieces:
            if piece.first <= d <= piece.last:
                return piece
        return None

    def due_day(self, d):
        piece = self.day_piece(d)
        return piece is not None and piece.due(d)

    def breaks(self, d):
        """STREAK-10: a due Day before today whose outcome is missed, failed or partly done."""
        return d < self.today and self.outcome(d)[0] not in ('done', 'skipped')

    # -- STREAK-10, STREAK-11, STREAK-17: Days under day-based rules

    def forgiven(self, d):
        """STREAK-17: a breaking Day is forgiven while fewer than `allowance` Days of its calendar
        week or month were; since every breaking Day is forgiven until then, that is while fewer
        than `allowance` breaking due Days precede it in that period."""
        if not self.allowance:
            return False
        first, _ = self.forgiveness_calendar.of(d)
        earlier = sum(1 for x in range(first, d) if self.due_day(x) and self.breaks(x))
        return earlier < self.allowance

    def day_status(self, d):
        """STREAK-10 / STREAK-11 / STREAK-19: the status of a Day under a day-based rule, d <= today."""
        if not self.due_day(d):
            return 'notDue'
        result, f = self.outcome(d)
        if result in ('done', 'skipped'):
            return result
        if d == self.today:                                    # STREAK-11: never held against anyone today
            return partial(f) if result == 'partial' else 'pending'
        if self.forgiven(d):
            return 'forgiven'
        return partial(f) if result == 'partial' else 'missed'

    def day_breaks_between(self, lo, hi):
        """Whether a Day-based unit in [lo, hi] breaks (a breaking due Day that is not forgiven)."""
        hi = min(hi, self.today - 1)
        if lo > hi:
            return False
        if not self.allowance:                                 # every breaking due Day breaks: count them
            for piece in self.day_pieces:
                a, b = piece.clip(lo, hi)
                if a <= b:
                    kept = sum(1 for d in self.entries_in(a, b) if piece.due(d) and not self.breaks(d))
                    if piece.due_count(a, b) > kept:
                        return True
            return False
        calendar = self.forgiveness_calendar
        i = calendar.index(lo)
        while calendar.first(i) <= hi:
            first, last = calendar.first(i), calendar.last(i)
            piece = self.day_piece(first)
            quiet = piece is not None and last <= piece.last and not self.entries_in(first, last)
            if quiet and piece.due_count(first, last) <= self.allowance:
                if piece.most_per_period(calendar.kind) <= self.allowance:
                    # No quiet period of this piece can break: go on at the next entry or the piece's end.
                    following = self.entries_in(last + 1, m.MAX_DAY)[:1]
                    resume = min(following[0] if following else m.MAX_DAY, piece.last + 1)
                    i = max(i + 1, calendar.index(min(resume, hi + 1)))
                    continue
            elif quiet and lo <= first and last <= hi:
                return True                                    # more due Days than the allowance, none kept
            elif self.period_breaks(first, last, lo, hi):
                return True
            i += 1
        return False

    def period_breaks(self, first, last, lo, hi):
        """Day by Day through one forgiveness period: a breaking due Day beyond the allowance in [lo, hi]."""
        count = 0
        for d in range(first, min(last, hi) + 1):
            if self.due_day(d) and self.breaks(d):
                count += 1
                if count > self.allowance and d >= lo:
                    return True
        return False

    # -- STREAK-12: N-per-period rules

    def judge_period(self, piece, i):
        """STREAK-12: a calendar period cut to its piece; None when its target is 0 (ignored)."""
        key = (id(piece), i)
        if key not in self.judged_periods:
            first, last = piece.cut(i)
            target = min(piece.times, last - first + 1 - self.goal.archived_in(first, last))
            if target <= 0:
                self.judged_periods[key] = None
            else:
                results = [(d, self.outcome(d)[0]) for d in self.entries_in(first, last)]
                done = [d for d, r in results if r == 'done']
                skipped = [d for d, r in results if r == 'skipped']
                self.judged_periods[key] = Period(first, last, target, done, skipped, self.today)
        return self.judged_periods[key]

    def period_status(self, piece, d):
        p = self.judge_period(piece, piece.index(d))
        if d > self.today:                                     # STREAK-9: upcoming unless already met
            return 'notDue' if p.met else 'upcoming'
        result, f = self.outcome(d)
        if result in ('done', 'skipped'):
            return result
        if result == 'partial':
            return partial(f)
        if d == self.today and not p.met:
            return 'pending'
        return 'missed' if p.missed else 'notDue'

    def periods_miss_between(self, lo, hi):
        """Whether a missed period (a break, at its last Day) lies in [lo, hi]."""
        for piece in self.period_pieces:
            if lo > piece.last or hi < piece.first:
                continue
            i = piece.index(max(lo, piece.first))
            while True:
                first, last = piece.cut(i)
                if first > min(hi, piece.last) or last > hi:
                    break
                p = self.judge_period(piece, i)
                if p is None:                                  # wholly archived: go on after the archive
                    union = next(u for f, u in self.goal.archived if f <= first <= u)
                    i = max(i + 1, piece.index(min(union + 1, m.MAX_DAY)))
                    continue
                if last >= lo and p.missed:
                    return True
                i += 1
        return False

    # -- STREAK-14 ... STREAK-16, STREAK-20: units, streaks and milestones

    def counting_units(self):
        """STREAK-14: done due Days and met periods, which all hold entries."""
        units = []
        for d in self.entry_days:
            if self.due_day(d) and self.outcome(d)[0] == 'done':
                units.append(Unit(d, d))
        for piece in self.period_pieces:
            for i in sorted({piece.index(d) for d in self.entries_in(piece.first, piece.last)}):
                p = self.judge_period(piece, i)
                if p is not None and p.met:
                    units.append(Unit(p.done[0], p.reached))
        return sorted(units, key=lambda u: u.last)

    def breaks_between(self, lo, hi):
        """Whether a unit in [lo, hi] breaks; only Days before today can (STREAK-11)."""
        if lo > min(hi, self.today - 1):
            return False
        return self.day_breaks_between(lo, hi) or self.periods_miss_between(lo, hi)

    def streaks(self):
        """STREAK-14 / STREAK-15: runs of counting units with no break between them; the last run is
        current when no break follows it up to today. Returns (runs, current)."""
        if self.goal.deleted or not self.goal.recurring:
            return [], None
        if not hasattr(self, '_streaks'):
            runs = []
            for unit in self.counting_units():
                if runs and not self.breaks_between(runs[-1][-1].last + 1, unit.last - 1):
                    runs[-1].append(unit)
                else:
                    runs.append([unit])
            current = runs[-1] if runs and not self.breaks_between(runs[-1][-1].last + 1, self.today) else None
            self._streaks = runs, current
        return self._streaks

    @staticmethod
    def streak_json(run):
        if not run:
            return None
        return {'length': len(run), 'start': m.day_text(run[0].first), 'end': m.day_text(run[-1].last)}

    def milestones(self):
        """STREAK-20: every streak reaches each milestone not above its length, on the Day of its
        m-th counting unit; listed by streak, then milestone."""
        out = []
        for run in self.streaks()[0]:
            for milestone in MILESTONES:
                if milestone <= len(run):
                    out.append({'milestone': milestone, 'streakStart': m.day_text(run[0].first),
                                'reachedOn': m.day_text(run[milestone - 1].last)})
        return out

    def longest(self):
        """STREAK-16: the longest streak; of equals, the earliest."""
        best = None
        for run in self.streaks()[0]:
            if best is None or len(run) > len(best):
                best = run
        return best

    # -- STREAK-18: consistency

    def consistency(self):
        if self.goal.deleted or not self.goal.recurring:
            return {name: None for name in ['last7', 'last30', 'last365', 'sinceStart']}
        out = {}
        for name, size in WINDOWS:
            out[name] = self.window(self.today - size + 1)
        out['sinceStart'] = self.window(self.goal.start)
        return out

    def window(self, lo):
        """Done and judged units in [lo, today]: due Days before today except skipped ones, today
        when done, met periods on the Day their target was reached, missed ones on their last Day."""
        today, done, judged = self.today, 0, 0
        for piece in self.day_pieces:
            a, b = piece.clip(lo, today)
            if a > b:
                continue
            for d in self.entries_in(a, b):
                result = self.outcome(d)[0] if piece.due(d) else None
                done += result == 'done'
                judged -= result == 'skipped' and d < today
                judged += result == 'done' and d == today
            judged += piece.due_count(a, min(b, today - 1))
        for piece in self.period_pieces:
            met, missed = self.period_window(piece, lo)
            done += met
            judged += met + missed
        return {'done': done, 'due': judged}

    def period_window(self, piece, lo):
        """Met periods reached in [lo, today], and missed periods ending in [lo, today): the periods
        holding entries are judged one by one, the others are all missed and only counted."""
        met, not_missed = 0, 0
        for i in {piece.index(d) for d in self.entries_in(piece.first, piece.last)}:
            p = self.judge_period(piece, i)
            if p is not None and p.met and lo <= p.reached:
                met += 1
            if p is not None and not p.missed and not p.open and lo <= p.last:
                not_missed += 1
        return met, self.closed_live_periods(piece, lo, self.today - 1) - not_missed

    def closed_live_periods(self, piece, lo, hi):
        """How many periods of the piece end in [lo, hi] with at least one Day in the life."""
        lo, hi = max(lo, piece.first), min(hi, piece.last)
        if lo > hi:
            return 0
        first_i, last_i = piece.index(lo), piece.index(hi)
        if piece.cut(last_i)[1] > hi:
            last_i -= 1
        count = max(0, last_i - first_i + 1)
        for f, u in self.goal.archived:                        # minus the periods wholly archived
            f, u = max(f, piece.first), min(u, piece.last)
            if f > u:
                continue
            a, b = piece.index(f), piece.index(u)
            a += piece.cut(a)[0] < f
            b -= piece.cut(b)[1] > u
            count -= max(0, min(b, last_i) - max(a, first_i) + 1)
        return count

    # -- STREAK-27 ... STREAK-29: strength

    def strength(self):
        """The judged units of STREAK-18 that are not forgiven, in Day order, each moving S.

        The Days with entries and the last 31 Days (today − 30 … today, where the change and the
        moves need each unit's Day) are judged one by one; between them every due Day or closed
        period has no entry, so it is missed (a unit of value 0) or forgiven, and only the number
        of those units is counted, until S is 0, after which they change nothing."""
        if self.goal.deleted or not self.goal.recurring:
            return None
        if not hasattr(self, '_strength'):
            score = Strength(self.today)
            for piece in sorted(self.day_pieces + self.period_pieces, key=lambda p: p.first):
                if isinstance(piece, DayPiece):
                    self.day_piece_strength(piece, score)
                else:
                    self.period_piece_strength(piece, score)
            self._strength = score.answer()
        return self._strength

    def day_piece_strength(self, piece, score):
        """Due Days: done 1000 (today too); before today, partly done f and missed 0 unless forgiven."""
        hi = min(piece.last, self.today)
        if piece.first > hi:
            return
        tail = range(max(piece.first, self.today - 30), hi + 1)
        previous = piece.first - 1
        for d in sorted(set(self.entries_in(piece.first, hi)) | set(tail)):
            self.quiet_days_strength(piece, previous + 1, d - 1, score)
            previous = d
            if not piece.due(d):
                continue
            status = self.day_status(d)
            if status == 'done':
                score.unit(d, 1000, piece.rule)
            elif status == 'missed':
                score.unit(d, 0, piece.rule)
            elif status.startswith('partial') and d < self.today:
                score.unit(d, int(status[len('partial:'):]), piece.rule)
        self.quiet_days_strength(piece, previous + 1, hi, score)

    def quiet_days_strength(self, piece, a, b, score):
        """Days [a, b] of a piece, none with an entry, all before today: each due Day breaks, so
        it is a unit of value 0 unless it is forgiven (STREAK-17)."""
        if a > b or not score.score:
            return
        if not self.allowance:
            score.zeros(a, piece.due_count(a, b), piece.rule)
            return
        calendar = self.forgiveness_calendar
        i = calendar.index(a)
        while score.score and calendar.first(i) <= b:
            first, last = calendar.first(i), calendar.last(i)
            lo, hi = max(a, first), min(b, last)
            if lo == first and hi == last:                     # a whole period in the piece, quiet:
                missed = max(0, piece.due_count(first, last) - self.allowance)   # its first Days forgiven
                if not missed and piece.most_per_period(calendar.kind) <= self.allowance:
                    i = max(i + 1, calendar.index(b))          # no whole period can miss: on to the last
                    continue
            else:                                              # forgiven as far as the period allows
                earlier = sum(1 for x in range(first, lo) if self.due_day(x) and self.breaks(x))
                missed = max(0, piece.due_count(lo, hi) - max(0, self.allowance - earlier))
            score.zeros(lo, missed, piece.rule)
            i += 1

    def period_piece_strength(self, piece, score):
        """Met periods 1000 on the Day the target was reached; missed periods min(1000, P / target)
        on their last Day. The periods holding entries or touching the last 31 Days are judged;
        the others are closed with no done Day, so missed with value 0, and only counted."""
        hi = min(piece.last, self.today)
        if piece.first > hi or piece.times <= 0:               # every period's target 0: all ignored
            return
        indices = {piece.index(d) for d in self.entries_in(piece.first, hi)}
        indices |= set(range(piece.index(max(piece.first, self.today - 30)), piece.index(hi) + 1))
        after = piece.first                                    # the first Day not yet accounted for
        for i in sorted(indices):
            first, last = piece.cut(i)
            if first > after:
                score.zeros(after, self.closed_live_periods(piece, after, first - 1), piece.rule)
            after = last + 1
            p = self.judge_period(piece, i)
            if p is None:                                      # target 0: ignored
                continue
            if p.met:
                score.unit(p.reached, 1000, piece.rule)
            elif p.missed:
                total = 0
                for d in self.entries_in(p.first, p.last):
                    result, f = self.outcome(d)
                    total += 1000 if result == 'done' else f if result == 'partial' else 0
                score.unit(p.last, min(1000, total // p.target), piece.rule)
        if after <= hi:
            score.zeros(after, self.closed_live_periods(piece, after, self.today - 1), piece.rule)

    # -- STREAK-13: one-off kinds

    def judge_one_off(self):
        """Progress over the entries in Day order, and the Day from which it stayed at the target."""
        kind = self.goal.kind
        self.progress = {}                 # Day with an entry -> progress at the end of that Day
        if kind['type'] == 'countdown':
            return
        current = {item['id'] for item in kind.get('items', [])}
        total, items = 0, set()
        for d in self.entry_days:
            log = self.entries[d]['log']
            if not fits_type(kind, log):   # STREAK-8: an entry of another type adds nothing
                continue
            if kind['type'] == 'single':
                total = 1
            elif kind['type'] == 'subgoals':
                items |= set(log['items']) & current
                total = len(items)
            else:
                total = saturating_add(total, m.parse_amount(log['amount']))
            self.progress[d] = total
        self.target = {'single': 1, 'subgoals': len(current), 'progress': kind.get('target')}[kind['type']]
        self.total = total
        self.done_on = None                # the first Day after which progress stayed at or above the target
        for d in reversed(self.entry_days):
            if d not in self.progress:
                continue
            if self.progress[d] < self.target:
                break
            self.done_on = d

    def completion(self):
        kind, today = self.goal.kind, self.today
        if self.goal.deleted or self.goal.recurring:
            return None
        if kind['type'] == 'countdown':                        # Days left, and the share of time elapsed
            start, target = self.goal.start, kind['targetDay']
            share = 1000 if target == start else min(1000, max(0, 1000 * (today - start) // (target - start)))
            return {'done': today >= target, 'doneOn': m.day_text(target) if today >= target else None,
                    'thousandths': share, 'daysLeft': target - today}
        return {'done': self.done_on is not None, 'doneOn': m.day_text(self.done_on) if self.done_on is not None else None,
                'thousandths': fraction(self.total, self.target), 'daysLeft': None}

    def one_off_status(self, d):
        """STREAK-13 / STREAK-9 for a Day in the life of a one-off goal."""
        kind, today = self.goal.kind, self.today
        if kind['type'] == 'countdown':
            if d == kind['targetDay']:
                return 'done' if d <= today else 'upcoming'
            return 'pending' if d == today and today < kind['targetDay'] else 'notDue'
        if self.done_on is not None and d >= self.done_on:
            return 'done' if d == self.done_on else 'notDue'
        if d > today:
            return 'upcoming'
        if self.progress.get(d, 0) > 0:                       # a Day with an entry, the progress positive
            return partial(min(999, fraction(self.progress[d], self.target)))
        return 'pending' if d == today else 'notDue'

    # -- STREAK-9: any Day's status

    def status_on(self, d):
        """Judged Days as judged; Days after today `upcoming` when the goal would be due on them."""
        goal = self.goal
        if not goal.in_life(d):
            return 'notDue'
        if not goal.recurring:
            return self.one_off_status(d)
        piece = self.period_piece(d)
        if piece is not None:
            return self.period_status(piece, d)
        if d > self.today:
            return 'upcoming' if self.due_day(d) else 'notDue'
        return self.day_status(d)

    # -- STREAK-22: Today

    def on_today(self):
        return self.goal.in_life(self.today) and self.status_on(self.today) != 'notDue'

    def today_thousandths(self):
        """STREAK-22: one-off kinds give their completion fraction; others today's fraction."""
        if not self.goal.recurring:
            return self.completion()['thousandths']
        result, f = self.outcome(self.today)
        return {'done': 1000, 'partial': f}.get(result, 0)

    def current_length(self):
        run = self.streaks()[1]
        return len(run) if run else 0

    # -- STREAK-23: the Overview grid

    def intensity(self, d):
        """0 outside the life or after today; recurring kinds by the outcome of the Day's entry, due
        or not; one-off kinds by the Day's status. Done 4, partly done 1 + floor(3f / 1000)."""
        if d > self.today or not self.goal.in_life(d):
            return 0
        if self.goal.recurring:
            result, f = self.outcome(d)
        else:
            status = self.one_off_status(d)
            result, f = (status, 1000) if status == 'done' else ('partial', int(status[8:])) if status.startswith('partial') else ('none', 0)
        if result == 'done':
            return 4
        if result == 'partial':
            return 1 + 3 * f // 1000
        return 0

    # -- streaks.evaluate

    def answer(self, days=None):
        runs, current = self.streaks()
        out = {'today': m.day_text(self.today),
               'current': self.streak_json(current),
               'longest': self.streak_json(self.longest()),
               'milestones': self.milestones(),
               'consistency': self.consistency(),
               'completion': self.completion(),
               'onToday': self.on_today(),
               'strength': self.strength()}
        if days is not None:
            out['statuses'] = [self.status_on(d) for d in days]
        return out


# ---- The operations (2.9)

def read_profile(inp):
    return m.boundary_json(inp['profile'], '$.profile')


def evaluation(inp):
    profile = read_profile(inp)
    today = read_today(inp, profile)
    goal = Goal(inp['goal'])
    return Evaluation(goal, read_checkins(inp.get('checkIns', []), profile), profile['weekStart'], today)


def evaluate(inp):
    e = evaluation(inp)
    days = None
    if inp.get('range') is not None:
        first = m.scalar(m.parse_day, inp['range']['from'], '$.range.from')
        last = m.scalar(m.parse_day, inp['range']['to'], '$.range.to')
        days = range(first, last + 1)
    return e.answer(days)


def milestone_changes(inp):
    """STREAK-21: current milestones not yet announced are new; announced identities that are no
    longer current are revoked, listed by streak start, then milestone."""
    reached = evaluation(inp).milestones()
    announced = {(a['milestone'], m.scalar(m.parse_day, a['streakStart'], '$.announced')) for a in inp.get('announced', [])}
    current = {(r['milestone'], m.parse_day(r['streakStart'])) for r in reached}
    new = [r for r in reached if (r['milestone'], m.parse_day(r['streakStart'])) not in announced]
    revoked = sorted(announced - current, key=lambda a: (a[1], a[0]))
    return {'new': new, 'revoked': [{'milestone': ms, 'streakStart': m.day_text(start)} for ms, start in revoked]}


def evaluations(inp):
    """The live goals of a Today or Overview request, in Today order: createdAt, then identifier."""
    profile = read_profile(inp)
    today = read_today(inp, profile)
    checkins = read_checkins(inp.get('checkIns', []), profile)
    goals = [Goal(g, f'$.goals[{i}]') for i, g in enumerate(inp['goals'])]
    if len({g.id for g in goals}) != len(goals):
        raise Failure('duplicate_id', 'two goals with one id')
    goals = sorted((g for g in goals if not g.deleted), key=lambda g: (g.created, m.uuid_bytes(g.id)))
    return [Evaluation(g, checkins, profile['weekStart'], today) for g in goals]


def today_list(inp):
    evaluated = evaluations(inp)
    return {'items': today_items(evaluated), 'strengths': today_strengths(evaluated)}


def today_strengths(evaluated):
    """STREAK-30: each Today item's reported strength (thousandths), or None for a goal without
    one, in the order of today_items(evaluated)."""
    return [e.strength()['thousandths'] if e.strength() is not None else None for e in evaluated if e.on_today()]


def today_items(evaluated):
    """STREAK-22: the goals whose status today is not notDue, of evaluations in Today order."""
    items = []
    for e in evaluated:
        if not e.on_today():
            continue
        countdown = e.goal.kind['type'] == 'countdown'
        items.append({'goalID': e.goal.id, 'status': e.status_on(e.today), 'thousandths': e.today_thousandths(),
                      'streak': e.current_length(), 'daysLeft': e.goal.kind['targetDay'] - e.today if countdown else None})
    return items


def overview(inp):
    """STREAK-23: streaks, consistencies and a grid of whole weeks, the last containing today."""
    weeks = inp['weeks']
    items = []
    for e in evaluations(inp):
        first = m.week_start_of(e.today, e.week_start) - 7 * (weeks - 1)
        grid = [''.join(str(e.intensity(first + 7 * w + i)) for i in range(7)) for w in range(weeks)]
        item = {'goalID': e.goal.id, 'current': e.streak_json(e.streaks()[1]), 'longest': e.streak_json(e.longest())}
        item.update(e.consistency())
        item.update({'firstDay': m.day_text(first), 'grid': grid})
        items.append(item)
    return {'items': items}


OPERATIONS = {
    'streaks.evaluate': evaluate,
    'streaks.milestoneChanges': milestone_changes,
    'streaks.today': today_list,
    'streaks.overview': overview,
}
