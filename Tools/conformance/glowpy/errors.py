"""The one error type of the testee: a stable code (the spec's error codes) and where it was found."""


class Failure(Exception):
    """An error with its stable code and, where the spec asks for them, where it was found.

    `path` is a JSON path or draft field (model errors, MODEL-40), `issues` the draft issues
    (MODEL-45), `offset` a byte offset (wire errors, WIRE-9 ... WIRE-24) and `section` the part of
    a bundle (BUNDLE-13). CONF-4 sends exactly these members back to the runner. `rule` names the
    rule that refuses, where a message must say it (the relay's errors, FEED-29); it is not sent.
    """

    def __init__(self, code, message='', path=None, issues=None, offset=None, section=None, rule=None):
        super().__init__(message or code)
        self.code, self.path, self.issues = code, path, issues
        self.offset, self.section, self.rule = offset, section, rule

    def at(self, base):
        """Locates a relative JSON path under `base` (MODEL-40)."""
        if self.path is None:
            self.path = base
        elif not self.path.startswith('$'):
            self.path = base + self.path if self.path.startswith('[') else base + '.' + self.path
        return self

    def shifted(self, delta, section=None):
        """The same error with its byte offset moved by `delta` (a record inside a bundle, BUNDLE-18)."""
        if self.offset is not None:
            self.offset += delta
        if section is not None:
            self.section = section
        return self

    def response(self):
        """The `error` member of a CONF-4 response."""
        error = {'code': self.code}
        for key in ('path', 'issues', 'section', 'offset'):
            value = getattr(self, key)
            if value is not None:
                error[key] = value
        if str(self) and str(self) != self.code:
            error['message'] = str(self)
        return error
