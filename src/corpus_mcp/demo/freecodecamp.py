"""Demo freeCodeCamp archive: fcc2zim 2.1.0's layout, three challenges of one block.

Laid out as the real archive in ``../shared/zims/families`` is (its README): each
challenge is the curriculum's Markdown, ``content/curriculum/<superblock>/<block>/<id>.md``
(``text/markdown``, untitled, a front matter then ``# --description--``,
``# --instructions--``, ``# --hints--``, ``# --seed--`` with ``## --seed-contents--``,
``# --solutions--``), outside the full-text index; its front article is an empty stub
``index/<superblock>/<block>/<id>.html`` titled by the challenge, whose ``meta refresh``
opens the Vue.js reader ``index.html`` (the main page). Beside them: the course index
``content/curriculum/index.json``, the locales and MathJax's own README (Markdown too).
The challenges are written for this demo.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

from corpus_mcp.zim.writer import Page, write_zim

FILE = "freecodecamp/freecodecamp_en_javascript_2026-12.zim"
MAIN_PATH = "index.html"
SUPERBLOCK = "javascript-algorithms-and-data-structures"
BLOCK = "basic-algorithm-scripting"
METADATA = {
    "Title": "freeCodeCamp JavaScript",
    "Description": "freeCodeCamp's JavaScript curriculum, offline",
    "Language": "eng",
    "Name": "freecodecamp_en_javascript",
    "Creator": "freeCodeCamp",
    "Publisher": "openZIM",
    "Date": "2026-12-01",
    "Scraper": "fcc2zim v2.1.0",
    "Tags": "FCC;freeCodeCamp;_ftindex:yes",
}


class Challenge(NamedTuple):
    id: str
    title: str
    dashed: str
    markdown: str

    @property
    def path(self) -> str:
        return f"content/curriculum/{SUPERBLOCK}/{BLOCK}/{self.id}.md"

    @property
    def stub_path(self) -> str:
        return f"index/{SUPERBLOCK}/{BLOCK}/{self.id}.html"


def _challenge(id_: str, title: str, dashed: str, body: str) -> Challenge:
    front = f"---\nid: {id_}\ntitle: {title}\nchallengeType: 5\ndashedName: {dashed}\n---\n\n"
    return Challenge(id_, title, dashed, front + body)


CHALLENGES = (
    _challenge(
        "d3m0000000000000000000a1",
        "Count the Vowels",
        "count-the-vowels",
        """# --description--

Return how many vowels a word holds. Vowels are the letters `a`, `e`, `i`, `o` and `u`,
in either case.

# --instructions--

Complete `countVowels` so that it walks the word once and counts each vowel it meets.

# --hints--

`countVowels("kiwix")` should return a number.

```js
assert.isNumber(countVowels('kiwix'));
```

`countVowels("Offline")` should return `3`.

```js
assert.strictEqual(countVowels('Offline'), 3);
```

# --seed--

## --seed-contents--

```js
function countVowels(word) {
  return word;
}

countVowels('kiwix');
```

# --solutions--

```js
function countVowels(word) {
  return [...word.toLowerCase()].filter(c => 'aeiou'.includes(c)).length;
}
```

---

```js
function countVowels(word) {
  return (word.match(/[aeiou]/gi) || []).length;
}
```
""",
    ),
    _challenge(
        "d3m0000000000000000000a2",
        "Sum a Range",
        "sum-a-range",
        """# --description--

Given two whole numbers, return the sum of every number between them, both ends included,
whichever of the two is smaller.

# --hints--

`sumRange(1, 4)` should return `10`.

```js
assert.strictEqual(sumRange(1, 4), 10);
```

`sumRange(4, 1)` should return `10`.

```js
assert.strictEqual(sumRange(4, 1), 10);
```

# --seed--

## --before-user-code--

```js
const calls = [];
```

## --seed-contents--

```js
function sumRange(a, b) {
  return 0;
}
```

# --solutions--

```js
function sumRange(a, b) {
  const [low, high] = a < b ? [a, b] : [b, a];
  return ((high - low + 1) * (low + high)) / 2;
}
```
""",
    ),
    _challenge(
        "d3m0000000000000000000a3",
        "Mirror the Words",
        "mirror-the-words",
        """# --description--

Return the sentence with the order of its words reversed, each word kept as it is. See
[the String methods](https://developer.mozilla.org/docs/Web/JavaScript/Reference/Global_Objects/String)
for help.

# --hints--

`mirrorWords("offline reading works")` should return `"works reading offline"`.

```js
assert.strictEqual(mirrorWords('offline reading works'), 'works reading offline');
```

# --seed--

## --seed-contents--

```js
function mirrorWords(sentence) {
  return sentence;
}
```

# --solutions--

```js
function mirrorWords(sentence) {
  return sentence.split(' ').reverse().join(' ');
}
```
""",
    ),
)

_READER = """<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" >
    <title>freeCodeCamp on Kiwix</title>
    <script type="module" crossorigin src="./assets/index.js"></script>
  </head>
  <body>
    <div id="app"></div>
    <noscript><p>JavaScript is disabled in your browser.</p></noscript>
  </body>
</html>
"""


def _stub(challenge: Challenge) -> str:
    target = f"../../../index.html#{SUPERBLOCK}/{BLOCK}/{challenge.id}"
    return (
        f"<html><head><title>{challenge.title}</title>"
        f'<meta http-equiv="refresh" content="0;URL=\'{target}\'" /></head>'
        "<body></body></html>"
    )


def _asset(path: str, mimetype: str, content: str) -> Page:
    return Page(path=path, content=content, mimetype=mimetype, front=False, indexed=False)


def _pages() -> list[Page]:
    course = {SUPERBLOCK: {BLOCK: [{"title": c.title, "slug": c.id} for c in CHALLENGES]}}
    pages = [
        Page(path=MAIN_PATH, content=_READER, front=True, index_text=""),
        _asset("assets/index.js", "application/javascript", "console.log('reader');"),
        _asset("content/curriculum/index.json", "application/json", json.dumps(course)),
        _asset(
            "content/locales/translations.json",
            "application/json",
            json.dumps({"buttons": {"run": "Run", "check-code": "Check Your Code"}}),
        ),
        _asset(
            "mathjax/README.md", "text/markdown", "# MathJax\n\nBeautiful math in all browsers.\n"
        ),
    ]
    for challenge in CHALLENGES:
        pages.append(
            Page(
                path=challenge.path,
                content=challenge.markdown,
                mimetype="text/markdown",
                front=False,
                indexed=False,
            )
        )
        pages.append(
            Page(path=challenge.stub_path, title=challenge.title, content=_stub(challenge))
        )
    return pages


def build(path: Path) -> Path:
    """Write the demo freeCodeCamp archive at ``path``."""
    return write_zim(path, pages=_pages(), metadata=METADATA, main_path=MAIN_PATH)


__all__ = ["BLOCK", "CHALLENGES", "FILE", "MAIN_PATH", "SUPERBLOCK", "build"]
