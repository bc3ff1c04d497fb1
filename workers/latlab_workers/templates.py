"""Command templates: `{name}` placeholders filled from a context, giving an argument list
(programs never see a shell). An argument that is exactly one placeholder of a list value
becomes that many arguments."""

import re

Context = dict[str, str | list[str]]

_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.-]+)\}")


class TemplateError(Exception):
    pass


# A value may itself hold placeholders (an axis var such as "{build_dir}/c_client"), rendered
# in turn; this bounds the nesting (and ends a cycle).
_MAX_DEPTH = 4


def render(template: list[str], context: Context, depth: int = 0) -> list[str]:
    argv: list[str] = []
    for part in template:
        whole = _PLACEHOLDER.fullmatch(part)
        value = _lookup(context, whole.group(1)) if whole else None
        if isinstance(value, list):
            argv.extend(render_one(item, context, depth + 1) for item in value)
        else:
            argv.append(render_one(part, context, depth))
    return argv


def render_one(part: str, context: Context, depth: int = 0) -> str:
    if depth > _MAX_DEPTH:
        raise TemplateError(f"placeholders nest too deeply in '{part}'")

    def value(match: re.Match[str]) -> str:
        found = _lookup(context, match.group(1))
        if isinstance(found, list):
            raise TemplateError(f"'{{{match.group(1)}}}' is a list: it can only stand alone "
                                f"as an argument")
        return render_one(found, context, depth + 1) if "{" in found else found

    return _PLACEHOLDER.sub(value, part)


def _lookup(context: Context, key: str) -> str | list[str]:
    if key not in context:
        raise TemplateError(f"the suite refers to an unknown value '{{{key}}}'")
    return context[key]
