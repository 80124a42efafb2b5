"""Code blocks: a ``pre``'s text, its language and a fence that cannot close early."""

from __future__ import annotations

import re

from lxml.html import HtmlElement

from corpus_mcp.cleaning.html import classes, has_class, is_junk

__all__ = ["code_language", "fence_for", "pre_text"]

_LANG_CLASS = re.compile(
    r"^(?:mw-highlight-lang-|lang-|language-|highlight-source-|source-|brush:)(?P<lang>[\w#+.-]+)$"
)
_LANG_OK = re.compile(r"^[\w#+.-]{1,30}$")


def fence_for(content: str, char: str = "`") -> str:
    longest = max((len(m) for m in re.findall(re.escape(char) + "+", content)), default=0)
    return char * max(3, longest + 1)


def pre_text(el: HtmlElement) -> str:
    """A ``pre``'s text with ``<br>`` as newlines and junk (line-number gutters) skipped."""
    parts: list[str] = []

    def walk(node: HtmlElement) -> None:
        if node.text:
            parts.append(node.text)
        for child in node:
            if isinstance(child.tag, str):
                if child.tag == "br":
                    parts.append("\n")
                elif not is_junk(child) and not has_class(child, "linenos"):
                    walk(child)
            if child.tail:
                parts.append(child.tail)

    walk(el)
    return "".join(parts).replace("\r\n", "\n").replace("\r", "\n")


def code_language(pre: HtmlElement) -> str:
    value = str(pre.get("data-language") or pre.get("data-lang") or "").strip()
    if value and _LANG_OK.match(value):
        return value.lower()
    candidates = [pre]
    code = pre.find("code")
    if code is not None:
        candidates.insert(0, code)
    parent = pre.getparent()
    while parent is not None and len(candidates) < 5:
        candidates.append(parent)
        parent = parent.getparent()
    for node in candidates:
        for token in sorted(classes(node)):
            match = _LANG_CLASS.match(token)
            if match:
                return match.group("lang").lower()
            if token.startswith("highlight-") and token not in ("highlight-default",):
                lang = token[len("highlight-") :]
                if _LANG_OK.match(lang) and lang not in ("source", "default"):
                    return lang.lower()
    return ""
