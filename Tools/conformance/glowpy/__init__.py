"""A second, independent implementation of the Glow specification (Spec/*.md), in Python.

One module per area of the conformance corpus: `model` (section 1), `streaks` (2), `wire` (3),
`bundle` (4), `themes` (5) and `auth` (7: the password policy and password hashes, with Argon2id
written from RFC 9106 in `argon2`, no Argon2 library; ID tokens and key sets, section 7.4, in
`idtoken`, RSA and P-256 written with `pow()`, no crypto library; the account service, section 7.5,
in `accounts`) and `feed` (8: the Glow feed, its clocks, replicas and their merge, and what a
viewer reads of it; `feeditems`, section 8.10, derives a person's items from their data and
publishes them; `feedwire`, section 8.12, writes and reads replicas, the relay's messages and
social data in the wire format, by hand with `protowire`); `dataset` holds a person's data set and
its mutations (section 1.13) and the tracker of section 2.7, with operations in the model and
streaks areas. `server` limits how often one client may call a server (section 9.3, SERVER-11). `reminders` (10)
plans a goal's local notifications and hands a new plan over as a change, judging Days with `streaks`. `pushes`
(10.5) turns the relay's accepted deltas into friends' pushes. Each module's
OPERATIONS maps the corpus operations of its area to functions that take the request's `input` and
return its `result`, or raise `errors.Failure`.
`protos` generates and loads the classes of Spec/glow.proto with the stock protobuf tools.
"""
