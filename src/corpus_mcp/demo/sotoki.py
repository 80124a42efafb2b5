"""Demo Stack Exchange archives (sotoki v3.0.2): Stack Overflow and Mathematics.

Threads overlap the other demo archives on purpose (super() and the MRO, vector vs
list, asyncio vs threads, regex, git, std::stoi, Euler's identity, the Basel sum). In
several threads the accepted answer is not the highest scored, as on the real sites.
Math posts keep their TeX raw (``$…$``, ``$$…$$``, ``\\(…\\)``); one Stack Overflow
thread contains dollar-delimited TeX too.
"""

from __future__ import annotations

from pathlib import Path

from corpus_mcp.demo._sotoki import Answer as A
from corpus_mcp.demo._sotoki import Comment as C
from corpus_mcp.demo._sotoki import Site, User, code, metadata, site_entries
from corpus_mcp.demo._sotoki import Thread as T
from corpus_mcp.zim.writer import write_zim

SO_FILE = "stackexchange/stackoverflow.com_en_demo_2026-05.zim"
MATH_FILE = "stackexchange/math.stackexchange.com_en_demo_2026-03.zim"

SO_USERS = (
    User(101, "Ada Lindqvist", 412_300),
    User(102, "Ravi Menon", 98_450),
    User(103, "Jonas Weber", 251_020),
    User(104, "Mei Tanaka", 15_230),
    User(105, "Carlos Ortega", 3_410),
    User(106, "Priya Natarajan", 187_900),
    User(107, "Tom Hale", 712),
    User(108, "Sofia Rossi", 54_600),
)

PY = "python"
CPP = "cpp"

SO_THREADS: tuple[T, ...] = (
    T(
        3277367,
        "How does Python's super() work with multiple inheritance?",
        ("python", "inheritance", "multiple-inheritance", "super"),
        104,
        1089,
        "2010-07-18T21:40:24.157",
        "<p>I have two parent classes and a child class that inherits from both. When I call "
        "<code>super().__init__()</code> in the child, which parent's method runs first? Does "
        "Python call both, and in which order does it pick the parent method?</p>"
        + code(
            "class First:\n    def __init__(self):\n        print('first')\n\n"
            "class Second:\n    def __init__(self):\n        print('second')\n\n"
            "class Third(First, Second):\n    def __init__(self):\n        super().__init__()",
            PY,
        ),
        answers=(
            A(
                106,
                412,
                "<p>Short version: <code>super()</code> does not call &quot;the parent&quot;. "
                "It calls the <em>next</em> class in the instance's method resolution order. Print "
                "<code>Third.__mro__</code> to see it.</p>",
            ),
            A(
                101,
                389,
                "<p>Python picks the method by walking the <strong>method resolution "
                "order</strong> (MRO), which is computed with the C3 linearization algorithm. For "
                "<code>class Third(First, Second)</code> the MRO is <code>Third, First, Second, "
                "object</code>: children come before parents, and parents keep the left-to-right "
                "order of the class statement.</p><p><code>super().__init__()</code> in Third "
                "therefore runs <code>First.__init__</code>. Only if First also calls "
                "<code>super().__init__()</code> does Second's method run; this is cooperative "
                "multiple inheritance, and every class in the diamond must call super() for all "
                "of them to run exactly once.</p>"
                + code(
                    "class First:\n    def __init__(self):\n        super().__init__()\n"
                    "        print('first')\n\nprint(Third.__mro__)",
                    PY,
                ),
                accepted=True,
                comments=(
                    C(
                        102,
                        45,
                        "The C3 rule also explains the <code>TypeError: Cannot create a "
                        "consistent method resolution order</code> error.",
                    ),
                ),
            ),
            A(
                107,
                12,
                "<p>It calls First only. If you need both, call them explicitly: "
                "<code>First.__init__(self)</code> and <code>Second.__init__(self)</code>.</p>",
            ),
        ),
        comments=(C(103, 8, "See the <code>super</code> documentation for the full rules."),),
        views=912_345,
    ),
    T(
        2209224,
        "What is the difference between std::vector and std::list?",
        ("c++", "stl", "vector", "list"),
        105,
        315,
        "2010-02-05T12:51:30.210",
        "<p>When should I prefer <code>std::list</code> over <code>std::vector</code>? I insert "
        "elements in the middle fairly often.</p>",
        answers=(
            A(
                103,
                402,
                "<p><code>std::vector</code> stores elements contiguously: random access "
                "is O(1), appending is amortized O(1), and iteration is very cache friendly. "
                "<code>std::list</code> is a doubly linked list: insertion and removal anywhere "
                "are "
                "O(1) once you have an iterator, iterators stay valid, but there is no random "
                "access and every node is a separate allocation.</p><p>In practice vector wins "
                "even for middle insertions up to surprisingly large sizes, because shifting "
                "contiguous memory is cheap and traversing a list to find the position is not. "
                "Measure before choosing list.</p>",
                accepted=True,
            ),
            A(
                102,
                57,
                "<p>Use list when you need <code>splice</code> or stable iterators while "
                "inserting; otherwise vector.</p>",
            ),
        ),
        views=402_118,
    ),
    T(
        27435284,
        "asyncio vs threading in Python: which should I use for I/O-bound work?",
        ("python", "python-asyncio", "multithreading"),
        105,
        211,
        "2014-12-11T09:22:10.330",
        "<p>I need to download thousands of URLs concurrently. Should I use threads or asyncio? "
        "What is the difference between asyncio and threads in practice?</p>",
        answers=(
            A(
                106,
                260,
                "<p>Both work for I/O-bound code because the GIL is released while "
                "waiting on sockets. Threads are preemptive and each costs a stack of memory; "
                "asyncio runs many coroutines on one thread in an event loop and switches only at "
                "<code>await</code>, so tens of thousands of connections are cheap.</p><p>Choose "
                "asyncio (or Trio) when your libraries are async-aware, e.g. aiohttp or httpx; "
                "choose a <code>ThreadPoolExecutor</code> when you must call blocking libraries. "
                "For CPU-bound work neither helps: use multiprocessing.</p>",
                accepted=True,
            ),
            A(
                101,
                88,
                "<p>A thread pool of 20 threads with <code>requests</code> is the simplest "
                "thing that works; asyncio scales further.</p>",
            ),
        ),
        views=188_000,
    ),
    T(
        927358,
        "How do I undo the most recent local commits in Git?",
        ("git", "version-control", "git-commit", "undo"),
        107,
        26100,
        "2009-05-29T18:09:14.000",
        "<p>I accidentally committed the wrong files to Git but didn't push the commit to the "
        "server yet. How do I undo those commits from the local repository?</p>",
        answers=(
            A(
                103,
                28400,
                "<p>Undo the last commit and keep the changes staged:</p>"
                + code("git reset --soft HEAD~1", "bash")
                + "<p>Use <code>--mixed</code> (the default) to keep the changes unstaged, or "
                "<code>--hard</code> to throw them away. If the commit was already pushed, prefer "
                "<code>git revert</code>, which creates a new commit that undoes it.</p>",
                accepted=True,
            ),
            A(
                108,
                1900,
                "<p><code>git commit --amend</code> is enough when you only want to "
                "fix the last commit's message or add a forgotten file.</p>",
            ),
        ),
        views=13_400_000,
    ),
    T(
        201323,
        "How can I validate an email address using a regular expression?",
        ("regex", "email-validation", "email"),
        105,
        4200,
        "2008-10-14T14:14:34.000",
        "<p>What regular expression should I use to check that a string is a valid email "
        "address?</p>",
        answers=(
            A(
                106,
                3100,
                "<p>A fully RFC 5322 compliant regex is enormous. For practical "
                "purposes check for one <code>@</code> with something on both sides and a dot in "
                "the domain, then send a confirmation mail:</p>"
                + code(r"^[^@\s]+@[^@\s]+\.[^@\s]+$", "regex"),
                accepted=True,
            ),
            A(
                103,
                1200,
                "<p>Don't use a regex at all; use your framework's validator and "
                "verify by sending an email.</p>",
            ),
        ),
        views=3_900_000,
    ),
    T(
        231767,
        'What does the "yield" keyword do in Python?',
        ("python", "iterator", "generator", "yield"),
        104,
        13000,
        "2008-10-23T22:21:11.000",
        "<p>What is the use of the <code>yield</code> keyword in Python? What does it do?</p>",
        answers=(
            A(
                101,
                17500,
                "<p>A function containing <code>yield</code> is a generator function: "
                "calling it returns a generator object without running the body. Each "
                "<code>next()</code> runs the body until the next yield, which produces a value "
                "and suspends the function with its local state intact.</p>"
                + code("def countdown(n):\n    while n > 0:\n        yield n\n        n -= 1", PY),
                accepted=True,
            ),
        ),
        views=3_300_000,
    ),
    T(
        3055477,
        "Why is str.join faster than += for concatenating strings in a loop?",
        ("python", "string", "performance"),
        102,
        154,
        "2010-06-16T10:03:51.000",
        "<p>I build a large string in a loop with <code>s += part</code>. Someone told me to use "
        "<code>''.join(parts)</code>. Why is join faster?</p>",
        answers=(
            A(
                106,
                190,
                "<p>Strings are immutable, so each <code>+=</code> may copy the whole "
                "string built so far, which is quadratic overall. <code>str.join</code> computes "
                "the total length once, allocates once and copies each piece once: linear time. "
                "CPython has an in-place optimisation for <code>+=</code> but it is fragile.</p>",
                accepted=True,
            ),
        ),
        views=95_000,
    ),
    T(
        8706192,
        "When should I use std::unique_ptr instead of std::shared_ptr?",
        ("c++", "c++11", "smart-pointers", "unique-ptr", "shared-ptr"),
        105,
        720,
        "2012-01-02T23:00:00.000",
        "<p>Which smart pointer should be my default, and what does shared_ptr cost?</p>",
        answers=(
            A(
                103,
                810,
                "<p>Default to <code>std::unique_ptr</code>: single ownership, zero "
                "overhead compared with a raw pointer, movable with <code>std::move</code> but not "
                "copyable. Use <code>std::shared_ptr</code> only when ownership is genuinely "
                "shared; it carries an atomic reference count in a control block.</p>",
                accepted=True,
            ),
        ),
        views=310_000,
    ),
    T(
        11598990,
        "Why does std::stoi throw std::invalid_argument?",
        ("c++", "string", "stoi", "exception"),
        107,
        44,
        "2012-07-22T08:33:04.000",
        '<p><code>std::stoi("abc")</code> terminates my program with '
        "<code>terminate called after throwing an instance of 'std::invalid_argument'</code>. "
        "How do I convert a string to an int safely?</p>",
        answers=(
            A(
                108,
                61,
                "<p>stoi throws <code>std::invalid_argument</code> when no digits can be "
                "parsed and <code>std::out_of_range</code> when the value does not fit; catch "
                "both. "
                "For long long use <code>std::stoll</code>. In C++17, "
                "<code>std::from_chars</code> reports errors without exceptions.</p>",
                accepted=True,
            ),
        ),
        views=77_000,
    ),
    T(
        1294382,
        "What is the Global Interpreter Lock (GIL) in CPython?",
        ("python", "gil", "multithreading", "cpython"),
        104,
        310,
        "2009-08-18T12:57:21.000",
        "<p>What is the GIL and why does it stop my threads from using all CPU cores?</p>",
        answers=(
            A(
                101,
                400,
                "<p>The GIL is a mutex that allows only one thread to execute Python "
                "bytecode at a time, which keeps reference counting simple and thread-safe. "
                "Threads still help for I/O because the lock is released while blocking. Python "
                "3.13 offers an experimental free-threaded build without the GIL.</p>",
                accepted=True,
            ),
        ),
        views=240_000,
    ),
    T(
        38987,
        "How do I merge two dictionaries in a single expression in Python?",
        ("python", "dictionary", "merge"),
        105,
        6400,
        "2008-09-02T07:44:30.000",
        "<p>I want to merge two dictionaries into a new dictionary, with values from the second "
        "overriding the first.</p>",
        answers=(
            A(
                106,
                8500,
                "<p>In Python 3.9+ use the union operator: <code>z = x | y</code>. In "
                "3.5+ <code>z = {**x, **y}</code>.</p>",
                accepted=True,
            ),
        ),
        views=3_100_000,
    ),
    T(
        804115,
        "When do you use git rebase instead of git merge?",
        ("git", "git-rebase", "git-merge"),
        104,
        1800,
        "2009-04-29T20:26:05.000",
        "<p>When is it recommended to use git rebase vs. git merge?</p>",
        answers=(
            A(
                108,
                1500,
                "<p>Rebase replays your commits on top of the upstream branch, giving "
                "a linear history; merge records a merge commit and preserves the true history. "
                "Never rebase commits that others have already pulled.</p>",
                accepted=True,
            ),
        ),
        views=960_000,
    ),
    T(
        461203,
        "When to use virtual destructors in C++?",
        ("c++", "polymorphism", "virtual-destructor"),
        102,
        1700,
        "2009-01-20T12:58:22.000",
        "<p>I understand virtual functions. When should destructors be declared virtual?</p>",
        answers=(
            A(
                103,
                1900,
                "<p>Whenever you might delete a derived object through a pointer to "
                "the base class. Without a virtual destructor, <code>delete base_ptr;</code> is "
                "undefined behavior and the derived destructor does not run.</p>",
                accepted=True,
            ),
        ),
        views=880_000,
    ),
    T(
        739654,
        "How do I make function decorators and chain them together?",
        ("python", "decorator", "python-decorators"),
        107,
        3000,
        "2009-04-11T07:05:31.000",
        "<p>How do I write two decorators in Python that wrap a function's output in bold and "
        "italic tags?</p>",
        answers=(
            A(
                101,
                4200,
                "<p>A decorator is a function that takes a function and returns a "
                "replacement; stack them and they apply bottom-up. Use "
                "<code>functools.wraps</code> to keep the name and docstring.</p>"
                + code(
                    "from functools import wraps\n\ndef bold(fn):\n    @wraps(fn)\n"
                    "    def wrapper(*a, **k):\n        return '<b>' + fn(*a, **k) + '</b>'\n"
                    "    return wrapper",
                    PY,
                ),
                accepted=True,
            ),
        ),
        views=1_050_000,
    ),
    T(
        674304,
        "Why is __init__() always called after __new__()?",
        ("python", "class", "constructor", "metaclass"),
        105,
        700,
        "2009-03-23T17:13:00.000",
        "<p>What is the difference between <code>__new__</code> and <code>__init__</code>?</p>",
        answers=(
            A(
                106,
                750,
                "<p><code>__new__</code> creates and returns the instance (it is a "
                "static method receiving the class); <code>__init__</code> initialises the "
                "instance that <code>__new__</code> returned. Override <code>__new__</code> for "
                "immutable types or singletons.</p>",
                accepted=True,
            ),
        ),
        views=470_000,
    ),
    T(
        613183,
        "How do I sort a dictionary by value?",
        ("python", "sorting", "dictionary"),
        104,
        3400,
        "2009-03-05T00:49:05.000",
        "<p>I have a dictionary of word counts. How do I sort it by value, highest first?</p>",
        answers=(
            A(
                101,
                5900,
                "<p>Dictionaries keep insertion order since Python 3.7, so build a new "
                "one from the sorted items:</p>"
                + code("dict(sorted(x.items(), key=lambda item: item[1], reverse=True))", PY),
                accepted=True,
            ),
        ),
        views=4_600_000,
    ),
    T(
        2196995,
        "Is there any advantage of using map over unordered_map in case of trivial keys?",
        ("c++", "stl", "hash-map", "unordered-map"),
        102,
        520,
        "2010-02-04T10:09:51.000",
        "<p>std::map vs std::unordered_map: which is faster for int keys?</p>",
        answers=(
            A(
                103,
                480,
                "<p>unordered_map has average O(1) lookup via hashing; map is a "
                "red-black tree with O(log n) lookup but keeps keys sorted and has stable "
                "iteration order. For lookups alone unordered_map is usually faster.</p>",
                accepted=True,
            ),
        ),
        views=330_000,
    ),
    T(
        2301285,
        "What do 'lazy' and 'greedy' mean in the context of regular expressions?",
        ("regex", "regex-greedy", "non-greedy"),
        107,
        690,
        "2010-02-20T06:17:52.000",
        "<p>Could someone explain these two terms in an understandable way?</p>",
        answers=(
            A(
                108,
                840,
                "<p>Greedy quantifiers like <code>.*</code> match as much as possible and "
                "backtrack; lazy ones like <code>.*?</code> match as little as possible. On "
                "<code>&lt;b&gt;x&lt;/b&gt;</code>, <code>&lt;.*&gt;</code> matches the whole "
                "string while <code>&lt;.*?&gt;</code> matches only <code>&lt;b&gt;</code>.</p>",
                accepted=True,
            ),
        ),
        views=610_000,
    ),
    T(
        49482969,
        "What is the difference between trio and asyncio?",
        ("python", "python-trio", "python-asyncio", "structured-concurrency"),
        105,
        95,
        "2018-03-26T14:02:11.000",
        "<p>Trio claims to be easier to use correctly than asyncio. What are the practical "
        "differences?</p>",
        answers=(
            A(
                101,
                140,
                "<p>Trio is built around structured concurrency: tasks are started in a "
                "nursery, and the nursery block does not exit until every child finishes, so "
                "exceptions always propagate and cancellation scopes are reliable. asyncio "
                "adopted the idea later as <code>asyncio.TaskGroup</code> in Python 3.11. Trio "
                "also has no futures or callbacks in its public API.</p>",
                accepted=True,
            ),
        ),
        views=25_000,
    ),
    T(
        1132941,
        '"Least Astonishment" and the Mutable Default Argument',
        ("python", "language-design", "default-parameters"),
        104,
        3300,
        "2009-07-15T18:00:37.000",
        "<p>Why does <code>def foo(a=[])</code> keep appending to the same list across calls?</p>",
        answers=(
            A(
                103,
                1900,
                "<p>Default values are evaluated once, when the <code>def</code> "
                "statement runs, and stored on the function object. Use <code>None</code> as the "
                "default and create the list inside the function.</p>",
                accepted=True,
            ),
        ),
        views=260_000,
    ),
    T(
        2003505,
        "How do I delete a Git branch locally and remotely?",
        ("git", "version-control", "git-branch", "git-remote"),
        102,
        21000,
        "2010-01-05T01:12:15.000",
        "<p>I want to delete a branch both locally and on the remote server.</p>",
        answers=(
            A(
                108,
                25000,
                "<p><code>git branch -d name</code> deletes it locally (use "
                "<code>-D</code> to force), and <code>git push origin --delete name</code> "
                "deletes the remote branch.</p>",
                accepted=True,
            ),
        ),
        views=11_000_000,
    ),
    T(
        16188263,
        "Is signed integer overflow still undefined behavior in C++?",
        ("c++", "undefined-behavior", "integer-overflow"),
        105,
        120,
        "2013-04-24T11:14:30.000",
        "<p>Does adding 1 to INT_MAX wrap around in C++?</p>",
        answers=(
            A(
                103,
                150,
                "<p>Yes, signed overflow is undefined behavior; the compiler may assume "
                "it never happens. Unsigned arithmetic wraps modulo 2^N. C++20 made two's "
                "complement representation mandatory but did not define overflow.</p>",
                accepted=True,
            ),
        ),
        views=60_000,
    ),
    T(
        3277503,
        "How to read a file line-by-line into a list?",
        ("python", "string", "file", "readlines"),
        107,
        2600,
        "2010-07-18T22:25:01.000",
        "<p>How do I read every line of a file in Python and store each line as an element in a "
        "list?</p>",
        answers=(
            A(
                106,
                2800,
                "<p>Iterate over the file object inside a with block:</p>"
                + code(
                    "with open('file.txt') as f:\n    lines = [line.rstrip('\\n') for line in f]",
                    PY,
                )
                + "<p>Or <code>Path('file.txt').read_text().splitlines()</code>.</p>",
                accepted=True,
            ),
        ),
        views=5_600_000,
    ),
    T(
        15176104,
        "Range-based for loop: how to modify the elements of a vector?",
        ("c++", "c++11", "for-loop", "vector"),
        104,
        60,
        "2013-02-19T20:40:00.000",
        "<p><code>for (auto x : v) x *= 2;</code> does not change my std::vector. Why?</p>",
        answers=(
            A(
                108,
                80,
                "<p><code>auto x</code> copies each element. Use a reference: "
                "<code>for (auto&amp; x : v) x *= 2;</code>, or <code>const auto&amp;</code> to "
                "avoid copies when only reading.</p>",
                accepted=True,
            ),
        ),
        views=41_000,
    ),
    T(
        21558,
        "What is the diamond problem in C++ and how does virtual inheritance solve it?",
        ("c++", "multiple-inheritance", "virtual-inheritance", "diamond-problem"),
        102,
        260,
        "2008-09-22T01:21:04.000",
        "<p>With <code>class D : public B, public C</code> where B and C derive from A, calls to "
        "A's members are ambiguous. How do I fix it?</p>",
        answers=(
            A(
                106,
                90,
                "<p>Qualify the call, e.g. <code>d.B::f()</code>, if you really want two "
                "A subobjects.</p>",
            ),
            A(
                103,
                330,
                "<p>Derive B and C from A with <code>virtual</code>: "
                "<code>class B : virtual public A</code>. The most derived object then holds a "
                "single shared A subobject, and the most derived class initialises it. Unlike "
                "Python, C++ has no method resolution order; an unresolved override is simply an "
                "ambiguity error.</p>",
                accepted=True,
            ),
        ),
        views=150_000,
    ),
    T(
        14182879,
        "Regex to match LaTeX math between dollar signs like $x^2$",
        ("regex", "latex", "python"),
        107,
        35,
        "2013-01-06T16:30:12.000",
        "<p>My Markdown contains inline math such as $e^{i\\pi}+1=0$ and display math such as "
        "$$\\sum_{n=1}^\\infty \\frac{1}{n^2}$$. How can I find the inline spans without "
        "matching the display ones?</p>",
        answers=(
            A(
                108,
                41,
                "<p>Match display math first, then single dollars that are not adjacent "
                "to another dollar:</p>"
                + code(r"(?<!\$)\$(?!\$)(.+?)(?<!\$)\$(?!\$)", "regex")
                + "<p>Escaped dollars (<code>\\$</code>) need an extra lookbehind.</p>",
                accepted=True,
            ),
        ),
        views=9_000,
    ),
    T(
        43241221,
        "How can I run a blocking function without freezing the asyncio event loop?",
        ("python", "python-asyncio", "multithreading"),
        104,
        140,
        "2017-04-05T18:30:00.000",
        "<p>Calling <code>time.sleep</code> or a blocking database driver inside a coroutine "
        "stalls all my other tasks.</p>",
        answers=(
            A(
                101,
                60,
                "<p>Use <code>await asyncio.sleep()</code> instead of "
                "<code>time.sleep()</code> for delays.</p>",
            ),
            A(
                106,
                190,
                "<p>Run it in a worker thread: <code>await asyncio.to_thread(func, "
                "*args)</code> (Python 3.9+), or <code>loop.run_in_executor(None, func)</code>. "
                "The event loop keeps serving other coroutines while the thread blocks.</p>",
                accepted=True,
            ),
        ),
        views=120_000,
    ),
)

MATH_USERS = (
    User(201, "Hannah Klein", 88_200),
    User(202, "Yusuf Demir", 241_500),
    User(203, "Lucas Martin", 4_300),
    User(204, "Aiko Mori", 19_800),
    User(205, "Oskar Nilsson", 620),
)

MATH_THREADS: tuple[T, ...] = (
    T(3510, "How to prove Euler's identity $e^{i\\pi}+1=0$?",
      ("complex-analysis", "exponential-function", "eulers-identity"), 205, 320,
      "2010-07-28T13:10:00.000",
      "<p>I know Euler's identity $e^{i\\pi}+1=0$ but I don't understand why it is true. How "
      "can one prove it?</p>",
      answers=(
          A(204, 410, "<p>Geometrically, $\\frac{d}{dt}e^{it}=ie^{it}$, so $e^{it}$ moves on "
            "the unit circle at unit speed and after time $\\pi$ reaches $-1$.</p>"),
          A(202, 360, "<p>Use the power series $$e^z=\\sum_{n=0}^{\\infty}\\frac{z^n}{n!}.$$ "
            "Substituting $z=ix$ and separating even and odd terms gives "
            "$$e^{ix}=\\sum_{k}\\frac{(-1)^k x^{2k}}{(2k)!}+i\\sum_{k}\\frac{(-1)^k "
            "x^{2k+1}}{(2k+1)!}=\\cos x+i\\sin x.$$ This is Euler's formula. At $x=\\pi$ we "
            "get $e^{i\\pi}=\\cos\\pi+i\\sin\\pi=-1$, hence $e^{i\\pi}+1=0$.</p>",
            accepted=True,
            comments=(C(201, 12, "Worth noting that the series converges absolutely, so "
                                 "the rearrangement is allowed."),)),
      ), views=210_000),
    T(1212, "What is the derivative of $x^x$?",
      ("calculus", "derivatives"), 203, 140, "2010-08-05T09:00:00.000",
      "<p>The power rule gives $x\\cdot x^{x-1}$ and the exponential rule gives $x^x\\ln x$; "
      "neither seems right. What is $\\frac{d}{dx}x^x$?</p>",
      answers=(
          A(201, 190, "<p>Write $x^x=e^{x\\ln x}$. By the chain rule "
            "$$\\frac{d}{dx}x^x=e^{x\\ln x}\\,(\\ln x+1)=x^x(\\ln x+1).$$ Interestingly this is "
            "the sum of the two wrong answers.</p>", accepted=True),
          A(204, 60, "<p>Logarithmic differentiation: $y=x^x$, $\\ln y=x\\ln x$, so "
            "\\(y'/y=\\ln x+1\\).</p>"),
      ), views=98_000),
    T(8337, "Different methods to compute $\\sum\\limits_{k=1}^\\infty \\frac{1}{k^2}$",
      ("sequences-and-series", "riemann-zeta", "basel-problem"), 204, 780,
      "2010-10-29T19:16:00.000",
      "<p>Why does $\\sum_{n=1}^\\infty \\frac{1}{n^2} = \\frac{\\pi^2}{6}$? I would like to "
      "see several proofs of the Basel problem.</p>",
      answers=(
          A(202, 700, "<p><strong>Euler's product.</strong> $$\\frac{\\sin x}{x}=\\prod_{n=1}^"
            "{\\infty}\\left(1-\\frac{x^2}{n^2\\pi^2}\\right).$$ Comparing the coefficient of "
            "$x^2$ with the Taylor series $1-\\frac{x^2}{6}+\\dots$ gives "
            "$\\sum\\frac{1}{n^2\\pi^2}=\\frac16$.</p>", accepted=True),
          A(201, 910, "<p><strong>Fourier series.</strong> Parseval's identity for $f(x)=x$ "
            "on $[-\\pi,\\pi]$ yields $\\sum_{n\\ge1}\\frac{1}{n^2}=\\frac{\\pi^2}{6}$ "
            "rigorously.</p>"),
      ), views=240_000),
    T(5, "Proof that $\\sqrt{2}$ is irrational",
      ("number-theory", "irrational-numbers", "proof-writing"), 205, 95,
      "2010-07-20T19:12:00.000",
      "<p>How do you prove that $\\sqrt{2}$ cannot be written as a fraction?</p>",
      answers=(
          A(202, 150, "<p>Suppose $\\sqrt2=p/q$ in lowest terms. Then $p^2=2q^2$, so $p$ is "
            "even, $p=2r$, hence $q^2=2r^2$ and $q$ is even too, contradicting lowest "
            "terms.</p>", accepted=True),
      ), views=60_000),
    T(9286, "Proving $\\int_{-\\infty}^{\\infty} e^{-x^2}\\,dx = \\sqrt{\\pi}$",
      ("integration", "definite-integrals", "gaussian-integral"), 203, 330,
      "2010-11-08T10:00:00.000",
      "<p>How is the Gaussian integral evaluated? There is no elementary antiderivative.</p>",
      answers=(
          A(201, 420, "<p>Square it and switch to polar coordinates: $$I^2=\\int\\!\\!\\int "
            "e^{-(x^2+y^2)}\\,dx\\,dy=\\int_0^{2\\pi}\\!\\int_0^\\infty e^{-r^2}r\\,dr\\,d"
            "\\theta=\\pi,$$ so $I=\\sqrt\\pi$.</p>", accepted=True),
      ), views=150_000),
    T(11, "Is it true that $0.999999999\\ldots=1$?",
      ("real-analysis", "decimal-expansion"), 205, 520, "2010-07-20T19:20:00.000",
      "<p>I'm told $0.999\\ldots=1$, which seems wrong: it is always a little less than 1.</p>",
      answers=(
          A(204, 480, "<p>$0.999\\ldots$ denotes the limit of $0.9, 0.99, \\dots$, i.e. "
            "$\\sum_{k\\ge1}9\\cdot10^{-k}=1$. Two reals are equal when no number lies "
            "between them, and none does.</p>", accepted=True),
          A(203, 500, "<p>Algebra: $x=0.999\\ldots$, $10x=9.999\\ldots$, so $9x=9$.</p>"),
      ), views=330_000),
    T(1523, "Why are there infinitely many prime numbers?",
      ("number-theory", "prime-numbers"), 203, 60, "2010-08-12T12:00:00.000",
      "<p>What is the simplest proof that the primes never run out?</p>",
      answers=(
          A(202, 90, "<p>Euclid: given primes $p_1,\\dots,p_n$, the number "
            "$N=p_1p_2\\cdots p_n+1$ leaves remainder 1 on division by each, so its prime "
            "factors are new.</p>", accepted=True),
      ), views=40_000),
    T(75130, "How to prove that $\\lim\\limits_{x\\to0}\\frac{\\sin x}x=1$?",
      ("calculus", "limits", "trigonometry"), 205, 240, "2011-10-23T08:00:00.000",
      "<p>How can one prove \\(\\lim_{x\\to 0}\\frac{\\sin x}{x}=1\\) without L'Hôpital's "
      "rule?</p>",
      answers=(
          A(201, 300, "<p>For $0<x<\\pi/2$ compare areas in the unit circle: $\\sin x\\le x\\le"
            "\\tan x$, so $\\cos x\\le\\frac{\\sin x}{x}\\le1$; squeeze as $x\\to0$.</p>",
            accepted=True),
      ), views=120_000),
    T(354115, "Why are the eigenvalues of a real symmetric matrix real?",
      ("linear-algebra", "matrices", "eigenvalues-eigenvectors"), 204, 110,
      "2013-04-07T15:00:00.000",
      "<p>Let $A$ be real with $A=A^T$. Why is every eigenvalue $\\lambda$ real?</p>",
      answers=(
          A(202, 150, "<p>If $Av=\\lambda v$ with $v\\ne0$, then $\\bar v^TAv=\\lambda\\|v\\|^2$ "
            "and also $\\bar v^TAv=\\overline{\\bar v^T A v}$ because $A$ is real symmetric, "
            "so $\\lambda=\\bar\\lambda$.</p>", accepted=True),
      ), views=70_000),
    T(3706, "Proofs of Fermat's little theorem $a^p\\equiv a \\pmod p$",
      ("number-theory", "modular-arithmetic", "prime-numbers"), 203, 75,
      "2010-09-01T11:00:00.000",
      "<p>What are some accessible proofs of Fermat's little theorem?</p>",
      answers=(
          A(204, 100, "<p>Induction on $a$ with the binomial theorem: $(a+1)^p\\equiv a^p+1"
            "\\pmod p$ because $p$ divides $\\binom pk$ for $0<k<p$.</p>", accepted=True),
      ), views=35_000),
    T(255, "Why does the harmonic series $\\sum 1/n$ diverge?",
      ("sequences-and-series", "divergent-series"), 205, 130, "2010-07-21T10:00:00.000",
      "<p>The terms $1/n$ go to zero, so why is $\\sum_{n=1}^\\infty\\frac1n=\\infty$ while "
      "$\\sum\\frac1{n^2}$ converges?</p>",
      answers=(
          A(201, 170, "<p>Group terms: $\\frac13+\\frac14>\\frac12$, $\\frac15+\\dots+\\frac18>"
            "\\frac12$, and so on; infinitely many halves. Terms tending to zero is necessary "
            "but not sufficient.</p>", accepted=True),
      ), views=90_000),
    T(4060, "Intuition behind the chain rule",
      ("calculus", "derivatives", "intuition"), 203, 45, "2010-09-05T10:00:00.000",
      "<p>Why is $(f\\circ g)'(x)=f'(g(x))\\,g'(x)$?</p>",
      answers=(
          A(204, 70, "<p>Rates multiply: if $g$ stretches a small interval by $g'(x)$ and $f$ "
            "stretches by $f'(g(x))$, the composite stretches by the product.</p>",
            accepted=True),
      ), views=25_000),
)  # fmt: skip

STACKOVERFLOW = Site(
    domain="stackoverflow.com",
    title="Stack Overflow",
    description="Questions and answers for professional and enthusiast programmers",
    mathjax=False,
    date="2026-05-09",
    name="stackoverflow.com_en_demo",
    users=SO_USERS,
    threads=SO_THREADS,
    about="Stack Overflow is for professional and enthusiast programmers.",
)

MATH = Site(
    domain="math.stackexchange.com",
    title="Mathematics Stack Exchange",
    description="Questions and answers for people studying math at any level",
    mathjax=True,
    date="2026-03-21",
    name="math.stackexchange.com_en_demo",
    users=MATH_USERS,
    threads=MATH_THREADS,
    about="Mathematics Stack Exchange is for people studying math at any level.",
)


def _write(site: Site, path: Path) -> Path:
    pages, redirects = site_entries(site)
    return write_zim(
        path, pages=pages, redirects=redirects, metadata=metadata(site), main_path="questions"
    )


def build(path: Path) -> Path:
    """Write the demo Stack Overflow archive at ``path``."""
    return _write(STACKOVERFLOW, path)


def build_math(path: Path) -> Path:
    """Write the demo Mathematics Stack Exchange archive at ``path``."""
    return _write(MATH, path)
