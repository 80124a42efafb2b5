"""Demo Wikipedia archive: mwoffliner 1.17.5, flat ActionParse layout, new scheme.

A selection ZIM (no wiki main page), so the main path is the generated list page at
``index``. Articles overlap in vocabulary with the other demo archives on purpose
(Python, C++, inheritance and the MRO, asyncio, regex, git, Euler's identity, the
Basel problem, diabetes, hypertension, asthma) so cross-family search has competition.
"""

from __future__ import annotations

from pathlib import Path

from corpus_mcp.demo._mediawiki import (
    Article,
    Section,
    article_entries,
    asset_pages,
    code_block,
    list_main_page,
    math,
    navbox,
)
from corpus_mcp.zim.writer import Page, Redirect, write_zim

HOST = "en.wikipedia.org"
FILE = "wikipedia/wikipedia_en_demo_maxi_2026-05.zim"

METADATA: dict[str, str] = {
    "Name": "wikipedia_en_demo",
    "Title": "Wikipedia",
    "Description": "A demo selection of Wikipedia articles",
    "LongDescription": "Programming, mathematics, medicine and music articles from English "
    "Wikipedia, selected to exercise offline search.",
    "Creator": "Wikipedia",
    "Publisher": "openZIM",
    "Date": "2026-05-04",
    "Language": "eng",
    "Flavour": "maxi",
    "Tags": "wikipedia;_category:wikipedia;_pictures:yes;_videos:no;_details:yes;_ftindex:yes",
    "Scraper": "mwoffliner 1.17.5",
    "Source": HOST,
}

PYTHON = Article(
    title="Python (programming language)",
    hatnote="For other uses, see Python (disambiguation).",
    infobox=(
        ("Paradigm", "Multi-paradigm: object-oriented, procedural, functional, structured"),
        ("Designed by", "Guido van Rossum"),
        ("Developer", "Python Software Foundation"),
        ("First appeared", "20 February 1991"),
        ("Typing discipline", "Duck, dynamic, strong"),
        ("Filename extensions", ".py, .pyw, .pyi"),
    ),
    lead=(
        "<b>Python</b> is a high-level, general-purpose programming language. Its design "
        "philosophy emphasizes code readability with the use of significant indentation. "
        "Python is dynamically typed and garbage-collected, and it supports multiple "
        "programming paradigms, including structured, object-oriented and functional "
        "programming.",
        "Guido van Rossum began working on Python in the late 1980s as a successor to the "
        "ABC programming language and first released it in 1991. Python is consistently "
        "ranked as one of the most popular programming languages and is widely used in "
        "machine learning, data analysis, web development and scripting.",
    ),
    sections=(
        Section(
            2,
            "History",
            (
                "Python was conceived in the late 1980s at Centrum Wiskunde &amp; Informatica in "
                "the Netherlands. Van Rossum shouldered sole responsibility for the project as "
                "lead developer until 12 July 2018, when he announced his permanent vacation "
                "from his responsibilities as Python's benevolent dictator for life.",
            ),
        ),
        Section(
            3,
            "Python 2",
            (
                "Python 2.0 was released on 16 October 2000 with many major new features such as "
                "list comprehensions, cycle-detecting garbage collection and reference counting. "
                "Python 2.7's end-of-life was initially set for 2015, then postponed to 2020.",
            ),
        ),
        Section(
            3,
            "Python 3",
            (
                "Python 3.0 was released on 3 December 2008 as a major revision that is not "
                "completely backward-compatible. The print statement became the print function "
                "and strings became Unicode by default.",
            ),
        ),
        Section(
            4,
            "Release schedule",
            (
                "Since Python 3.9 a new feature release appears every year in October, and each "
                "version receives security fixes for five years.",
            ),
        ),
        Section(
            2,
            "Design philosophy and features",
            (
                "Python is a multi-paradigm programming language. Object-oriented programming and "
                "structured programming are fully supported, and many of its features support "
                "functional programming and aspect-oriented programming, including "
                "metaprogramming and metaobjects. Classes support multiple inheritance; the "
                'method resolution order is computed with the <a href="./C3_linearization">C3 '
                "linearization</a> algorithm, introduced in Python 2.3.",
                "Python uses dynamic typing and a combination of reference counting and a "
                "cycle-detecting garbage collector for memory management. Its core philosophy is "
                "summarized in the Zen of Python, which includes aphorisms such as "
                '"Beautiful is better than ugly" and "Readability counts".',
            ),
        ),
        Section(
            2,
            "Syntax and semantics",
            (
                "Python uses whitespace indentation, rather than curly brackets or keywords, to "
                "delimit blocks. An increase in indentation comes after certain statements; a "
                "decrease in indentation signifies the end of the current block.",
                code_block(
                    "python",
                    'def greet(name):\n    return f"Hello, {name}!"\n\nprint(greet("world"))',
                ),
            ),
        ),
        Section(
            3,
            "Statements and control flow",
            (
                "Python's statements include the <code>if</code> statement, the <code>for</code> "
                "statement which iterates over an iterable object, the <code>while</code> "
                "statement, the <code>try</code> statement for exception handling, the "
                "<code>class</code> statement and the <code>async def</code> form used for "
                "coroutines with asyncio.",
            ),
        ),
        Section(
            2,
            "Implementations",
            (
                "CPython is the reference implementation of Python. It is written in C and "
                "compiles Python programs into an intermediate bytecode which is then executed by "
                "its virtual machine. CPython has a global interpreter lock (GIL), which allows "
                "only one thread to execute Python bytecode at a time. Other implementations "
                "include PyPy, a fast tracing JIT compiler, and MicroPython for microcontrollers.",
            ),
        ),
    ),
    references=(
        "Van Rossum, Guido (2009). &quot;A Brief Timeline of Python&quot;. "
        "<i>The History of Python</i>.",
        "&quot;What's New in Python 3.0&quot;. Python Software Foundation.",
        "Simionato, Michele. &quot;The Python 2.3 Method Resolution Order&quot;.",
    ),
    redirects=("Python language", "Python programming language", "CPython"),
    section_redirects=(("Python 3000", "Python 3"), ("History of Python", "History")),
    navbox="programming",
    categories=("Python (programming language)", "Programming languages created in 1991"),
)

CPP = Article(
    title="C++",
    infobox=(
        (
            "Paradigm",
            "Multi-paradigm: procedural, imperative, functional, object-oriented, generic, modular",
        ),
        ("Designed by", "Bjarne Stroustrup"),
        ("First appeared", "1985"),
        ("Stable release", "C++23 (ISO/IEC 14882:2024)"),
        ("Typing discipline", "Static, strong, nominative, partially inferred"),
    ),
    lead=(
        "<b>C++</b> is a high-level, general-purpose programming language created by Danish "
        "computer scientist Bjarne Stroustrup. First released in 1985 as an extension of the "
        "C programming language, it has since expanded significantly over time; modern C++ "
        "has object-oriented, generic and functional features in addition to facilities for "
        "low-level memory manipulation.",
        "C++ is standardized by the International Organization for Standardization. Its "
        "standard library includes the containers and algorithms of the Standard Template "
        "Library, such as <code>std::vector</code>, <code>std::list</code> and "
        "<code>std::map</code>.",
    ),
    sections=(
        Section(
            2,
            "History",
            (
                "In 1979 Stroustrup began work on &quot;C with Classes&quot;, adding classes, "
                "derived classes, strong typing and inlining to C. It was renamed C++ in 1983, "
                "a reference to the increment operator.",
            ),
        ),
        Section(
            2,
            "Standard library",
            (
                "The C++ standard library provides containers (vector, list, deque, map, set, "
                "unordered_map), iterators, algorithms such as sort and find, smart pointers "
                "such as <code>std::unique_ptr</code> and <code>std::shared_ptr</code>, and "
                "string conversion functions like <code>std::stoi</code>.",
                code_block(
                    "cpp",
                    "#include <vector>\n#include <iostream>\n\nint main() {\n"
                    "    std::vector<int> v{3, 1, 2};\n    for (int x : v) std::cout << x;\n}",
                ),
            ),
        ),
        Section(
            2,
            "Object-oriented features",
            (
                "C++ supports multiple inheritance. Virtual base classes solve the diamond "
                "problem by sharing one base subobject, and virtual functions provide dynamic "
                "dispatch through a virtual method table.",
            ),
        ),
        Section(
            3,
            "Resource acquisition is initialization",
            (
                "RAII binds the lifetime of a resource to an object: constructors acquire and "
                "destructors release, so memory, files and locks are freed when a scope ends.",
            ),
        ),
    ),
    references=("Stroustrup, Bjarne (1994). <i>The Design and Evolution of C++</i>.",),
    redirects=("CPP", "C plus plus", "Cpp (programming language)"),
    section_redirects=(("RAII in C++", "Resource acquisition is initialization"),),
    navbox="programming",
)

C3 = Article(
    title="C3 linearization",
    lead=(
        "In computing, <b>C3 superclass linearization</b> is an algorithm used primarily to "
        "obtain the order in which methods should be inherited in the presence of multiple "
        "inheritance. In other words, the output of C3 superclass linearization is a "
        "deterministic <b>method resolution order</b> (MRO).",
        "C3 was first published at the 1996 OOPSLA conference for Dylan. It was adopted as "
        "the default MRO for new-style classes in Python 2.3, and is also used by Raku, "
        "Perl's mro pragma and Solidity.",
    ),
    sections=(
        Section(
            2,
            "Description",
            (
                "The C3 linearization of a class is the sum of the class plus a unique merge of "
                "the linearizations of its parents and a list of the parents itself. The list "
                "of parents as the last argument to the merge preserves the local precedence "
                "order of direct parent classes.",
                "The merge takes the first head of the lists that does not appear in the tail of "
                "any other list, appends it to the output and removes it from all lists; if no "
                "good head exists the linearization fails, which is why Python raises a "
                "<code>TypeError</code> for an inconsistent hierarchy.",
            ),
        ),
        Section(
            2,
            "Example",
            (
                "Given <code>class D(B, C)</code> where both B and C derive from A, the "
                "linearization is D, B, C, A, object: each class comes before its parents, and "
                "B comes before C because it is listed first.",
                code_block(
                    "python",
                    "class A: pass\nclass B(A): pass\nclass C(A): pass\n"
                    "class D(B, C): pass\n\nprint(D.__mro__)",
                ),
            ),
        ),
        Section(
            2,
            "Use in Python",
            (
                "Python's built-in <code>super()</code> follows the MRO, so a cooperative method "
                "calls the next class in the linearization rather than its literal parent.",
            ),
        ),
    ),
    references=(
        "Barrett, Kim et al. (1996). &quot;A Monotonic Superclass Linearization for "
        "Dylan&quot;. <i>OOPSLA '96</i>.",
    ),
    redirects=("Method resolution order", "C3 superclass linearization", "MRO (computing)"),
    navbox="oop",
)

MULTIPLE = Article(
    title="Multiple inheritance",
    hatnote='Not to be confused with <a href="./Inheritance_(object-oriented_programming)">'
    "single inheritance</a>.",
    lead=(
        "<b>Multiple inheritance</b> is a feature of some object-oriented programming "
        "languages in which an object or class can inherit features from more than one "
        "parent object or parent class.",
        "Languages that support it include C++, Python, Perl, Eiffel and Common Lisp. Java "
        "and C# allow a class to implement several interfaces but inherit from one class.",
    ),
    sections=(
        Section(
            2,
            "The diamond problem",
            (
                "The diamond problem is an ambiguity that arises when two classes B and C "
                "inherit from A, and class D inherits from both B and C. If a method in A has "
                "been overridden by B and C and D does not override it, which version does D "
                "inherit?",
                "C++ by default follows each inheritance path separately, so a D object contains "
                "two A subobjects unless the inheritance is virtual. Python builds a single "
                "method resolution order with the C3 linearization algorithm.",
            ),
        ),
        Section(
            2,
            "Mitigation",
            (
                "Mixins, traits and interfaces restrict what a second parent may carry, which "
                "avoids most of the ambiguity while keeping code reuse.",
            ),
        ),
    ),
    section_redirects=(("Diamond problem", "The diamond problem"),),
    navbox="oop",
)

INHERITANCE = Article(
    title="Inheritance (object-oriented programming)",
    lead=(
        "In object-oriented programming, <b>inheritance</b> is the mechanism of basing an "
        "object or class upon another object or class, retaining similar implementation. "
        "A class created through inheritance, a subclass or child class, acquires the "
        "properties and behaviors of the superclass or parent class.",
        "Inheritance should not be confused with subtyping. Overriding lets a subclass "
        "provide its own implementation of a method, and a call through <code>super</code> "
        "reaches the parent's version.",
    ),
    sections=(
        Section(
            2,
            "Types",
            (
                "Single inheritance: subclasses inherit the features of one superclass. "
                "Multilevel inheritance: a subclass is itself inherited from another subclass. "
                "Hierarchical inheritance: one class serves as superclass for more than one "
                "subclass. Multiple inheritance: one class has more than one superclass.",
            ),
        ),
        Section(
            2,
            "Subclasses and superclasses",
            (
                "A derived class reuses code from its base class. Constructors are usually not "
                "inherited, and languages provide a way to call the parent constructor, such as "
                "<code>super().__init__()</code> in Python.",
            ),
        ),
        Section(
            2,
            "Issues and alternatives",
            (
                "Deep hierarchies are fragile: a change in a base class can break subclasses, the "
                "fragile base class problem. Composition over inheritance is the principle that "
                "classes should achieve polymorphism by containing other objects.",
            ),
        ),
    ),
    redirects=(
        "Inheritance (computer science)",
        "Subclass (computer science)",
        "Superclass (computer science)",
    ),
    navbox="oop",
)

ASYNC_IO = Article(
    title="Asynchronous I/O",
    lead=(
        "In computer science, <b>asynchronous I/O</b> (also non-sequential I/O) is a form of "
        "input/output processing that permits other processing to continue before the "
        "transmission has finished.",
        "Event loops built on operating system notification interfaces such as epoll, "
        "kqueue and IOCP let a single thread wait on thousands of sockets. Python's asyncio "
        "and Trio libraries, Node.js and Rust's Tokio are built this way.",
    ),
    sections=(
        Section(
            2,
            "Forms",
            (
                "Callbacks, futures and promises, and coroutines with <code>async</code> and "
                "<code>await</code> syntax are the common programming interfaces. Coroutines "
                "read like sequential code while the event loop switches between tasks at each "
                "await point.",
            ),
        ),
        Section(
            2,
            "Structured concurrency",
            (
                "Structured concurrency, popularised by the Trio library for Python, requires "
                "that concurrent tasks live inside a nursery or task group whose block does not "
                "exit until every child task has finished, so errors propagate and cancellation "
                "is reliable.",
            ),
        ),
        Section(
            2,
            "Compared with threads",
            (
                "Threads are preemptively scheduled by the operating system and suit CPU-bound "
                "work in languages without a global lock; asynchronous I/O suits many mostly idle "
                "network connections because a task costs far less memory than a thread.",
            ),
        ),
    ),
    redirects=("Async I/O", "Non-blocking I/O", "Asynchronous input/output"),
    navbox="programming",
)

THREAD = Article(
    title="Thread (computing)",
    lead=(
        "In computer science, a <b>thread</b> of execution is the smallest sequence of "
        "programmed instructions that can be managed independently by a scheduler. Multiple "
        "threads of a process share its memory and resources.",
        "Sharing memory makes communication cheap but requires synchronization with mutexes, "
        "semaphores and condition variables to avoid race conditions.",
    ),
    sections=(
        Section(
            2,
            "Threads and processes",
            (
                "Processes are typically independent and have separate address spaces, while "
                "threads exist as subsets of a process. Context switching between threads of the "
                "same process is usually faster than between processes.",
            ),
        ),
        Section(
            2,
            "Scheduling",
            (
                "Preemptive multithreading lets the operating system interrupt a thread at any "
                "time; cooperative multithreading relies on threads to relinquish control, as "
                "coroutines do in an event loop.",
            ),
        ),
    ),
    redirects=("Multithreading (software)", "Thread (computer science)"),
    navbox="programming",
)

REGEX = Article(
    title="Regular expression",
    lead=(
        "A <b>regular expression</b> (shortened as <b>regex</b> or <b>regexp</b>) is a "
        "sequence of characters that specifies a match pattern in text. Usually such "
        "patterns are used by string-searching algorithms for find or find-and-replace "
        "operations on strings, or for input validation.",
        "The concept was formalized by the mathematician Stephen Cole Kleene in the 1950s "
        "and became popular with Unix text-processing utilities such as grep and sed.",
    ),
    sections=(
        Section(
            2,
            "Syntax",
            (
                "A regex pattern matches a target string. Metacharacters include <code>.</code> "
                "for any character, <code>*</code>, <code>+</code> and <code>?</code> for "
                "repetition, character classes in square brackets and anchors such as "
                "<code>^</code> and <code>$</code>.",
            ),
        ),
        Section(
            3,
            "Lazy matching",
            (
                "Quantifiers are greedy by default and match as much text as possible; a trailing "
                "question mark, as in <code>.*?</code>, makes them lazy so they match as little "
                "as possible.",
            ),
        ),
        Section(
            2,
            "Implementations",
            (
                "Backtracking engines such as Perl's, PCRE and Python's <code>re</code> module "
                "support backreferences but can take exponential time on pathological patterns; "
                "automaton-based engines such as RE2 guarantee linear time.",
            ),
        ),
    ),
    redirects=("Regex", "Regexp", "Regular expressions"),
    section_redirects=(("Non-greedy quantifier", "Lazy matching"),),
    navbox="programming",
)

GIT = Article(
    title="Git",
    infobox=(
        ("Original author", "Linus Torvalds"),
        ("Initial release", "7 April 2005"),
        ("Written in", "C, Shell, Perl, Tcl"),
        ("License", "GPL-2.0-only"),
    ),
    lead=(
        "<b>Git</b> is a distributed version control system that tracks versions of files. "
        "It is often used to control source code by programmers who are developing software "
        "collaboratively.",
        "Git was created by Linus Torvalds in 2005 for the development of the Linux kernel. "
        "Every Git working directory is a full repository with complete history.",
    ),
    sections=(
        Section(
            2,
            "Design",
            (
                "Git stores snapshots as content-addressed objects: blobs, trees, commits and "
                "tags, each named by a hash. Branches are movable references to commits, which "
                "makes branching and merging cheap.",
            ),
        ),
        Section(
            2,
            "Commands",
            (
                "Common commands include <code>git clone</code>, <code>git commit</code>, "
                "<code>git rebase</code>, <code>git merge</code> and <code>git reset</code>, "
                "which moves the current branch to another commit and can undo the last commit.",
            ),
        ),
    ),
    redirects=("Git (software)", "Git version control"),
    navbox="programming",
)

EULER_IDENTITY = Article(
    title="Euler's identity",
    hatnote="Not to be confused with <a href=\"./Euler's_formula\">Euler's formula</a>.",
    lead=(
        "In mathematics, <b>Euler's identity</b> is the equality "
        + math("e^{i\\pi }+1=0", display=True),
        "where <i>e</i> is Euler's number, the base of natural logarithms, <i>i</i> is the "
        "imaginary unit, which satisfies " + math("i^{2}=-1") + ", and π is pi, the ratio of "
        "the circumference of a circle to its diameter. It is named after the Swiss "
        "mathematician Leonhard Euler and is often cited as an example of deep mathematical "
        "beauty.",
    ),
    sections=(
        Section(
            2,
            "Mathematical beauty",
            (
                "The identity links five fundamental constants, 0, 1, π, e and i, using the "
                "basic operations of addition, multiplication and exponentiation, each once.",
            ),
        ),
        Section(
            2,
            "Explanations",
            (
                "Euler's identity is a special case of Euler's formula "
                + math("e^{ix}=\\cos x+i\\sin x")
                + ", evaluated at x = π, since cos π = −1 and "
                "sin π = 0.",
            ),
        ),
        Section(
            3,
            "Imaginary exponents",
            (
                "The power series of the exponential function converges for complex arguments; "
                "grouping its even and odd terms gives the series of cosine and sine, which "
                "proves Euler's formula.",
            ),
        ),
    ),
    redirects=("Euler identity", "E^(iπ) + 1 = 0"),
    navbox="math",
)

EULER_FORMULA = Article(
    title="Euler's formula",
    lead=(
        "<b>Euler's formula</b> is a mathematical formula in complex analysis that "
        "establishes the fundamental relationship between the trigonometric functions and "
        "the complex exponential function: for any real number x, "
        + math("e^{ix}=\\cos x+i\\sin x", display=True),
        "Richard Feynman called it &quot;our jewel&quot; and &quot;the most remarkable "
        "formula in mathematics&quot;.",
    ),
    sections=(
        Section(
            2,
            "Proofs",
            (
                "Using power series: expanding "
                + math("e^{z}=\\sum _{n=0}^{\\infty }z^{n}/n!")
                + " with z = ix and separating real and imaginary parts yields the Taylor series "
                "of cos x and sin x.",
            ),
        ),
        Section(
            2,
            "Applications",
            (
                "The formula turns trigonometry into algebra of exponentials; it underlies "
                "phasors in electrical engineering and the Fourier transform.",
            ),
        ),
    ),
    navbox="math",
)

BASEL = Article(
    title="Basel problem",
    lead=(
        "The <b>Basel problem</b> is a problem in mathematical analysis with relevance to "
        "number theory, concerning an infinite sum of inverse squares. It was first posed by "
        "Pietro Mengoli in 1650 and solved by Leonhard Euler in 1734.",
        "The problem asks for the precise sum of the reciprocals of the squares of the "
        "natural numbers: "
        + math("\\sum _{n=1}^{\\infty }{\\frac {1}{n^{2}}}={\\frac {\\pi ^{2}}{6}}", display=True),
    ),
    sections=(
        Section(
            2,
            "Euler's approach",
            (
                "Euler compared the Taylor series of sin x / x with its factorization as an "
                "infinite product over its roots ±nπ; equating the coefficients of x² gives the "
                "sum π²/6.",
            ),
        ),
        Section(
            2,
            "The Riemann zeta function",
            (
                "The sum is the value ζ(2) of the Riemann zeta function. Euler later found ζ(2k) "
                "for every positive integer k in terms of Bernoulli numbers.",
            ),
        ),
    ),
    redirects=("Sum of reciprocals of squares", "Zeta(2)"),
    navbox="math",
)

DERIVATIVE = Article(
    title="Derivative",
    lead=(
        "In mathematics, the <b>derivative</b> is a fundamental tool that quantifies the "
        "sensitivity to change of a function's output with respect to its input. The "
        "derivative of a function of a single variable at a chosen input value is the slope "
        "of the tangent line to the graph of the function at that point.",
        "The process of finding a derivative is called differentiation.",
    ),
    sections=(
        Section(
            2,
            "Rules of computation",
            (
                "The power rule gives " + math("{\\frac {d}{dx}}x^{n}=nx^{n-1}") + "; the "
                "product, quotient and chain rules combine derivatives of simpler functions.",
            ),
        ),
        Section(
            3,
            "Logarithmic differentiation",
            (
                "For functions such as " + math("x^{x}") + ", take logarithms first: "
                "ln y = x ln x, so y′/y = ln x + 1 and the derivative of x^x is x^x (ln x + 1).",
            ),
        ),
    ),
    section_redirects=(("Logarithmic derivative rule", "Logarithmic differentiation"),),
    redirects=("Differentiation (mathematics)",),
    navbox="math",
)

PRIME = Article(
    title="Prime number",
    lead=(
        "A <b>prime number</b> is a natural number greater than 1 that is not a product of "
        "two smaller natural numbers. The first primes are 2, 3, 5, 7 and 11.",
        "By the fundamental theorem of arithmetic every integer greater than 1 factors "
        "uniquely into primes.",
    ),
    sections=(
        Section(
            2,
            "Infinitude",
            (
                "Euclid proved that there are infinitely many primes: multiply any finite list of "
                "primes and add one; the result has a prime factor missing from the list.",
            ),
        ),
        Section(
            2,
            "Primality testing",
            (
                "Trial division is simple but slow. Fermat's little theorem, "
                + math("a^{p}\\equiv a{\\pmod {p}}")
                + ", underlies fast probabilistic tests such "
                "as the Miller–Rabin test.",
            ),
        ),
    ),
    redirects=("Prime numbers", "Primes"),
    navbox="math",
)

PHOTOSYNTHESIS = Article(
    title="Photosynthesis",
    lead=(
        "<b>Photosynthesis</b> is a system of biological processes by which photosynthetic "
        "organisms, such as most plants, algae and cyanobacteria, convert light energy, "
        "typically from sunlight, into the chemical energy necessary to fuel their "
        "metabolism.",
        "Most photosynthetic organisms release oxygen as a by-product; oxygenic "
        "photosynthesis maintains the oxygen content of Earth's atmosphere.",
    ),
    sections=(
        Section(
            2,
            "Overview",
            (
                "The overall equation is 6 CO₂ + 6 H₂O + light → C₆H₁₂O₆ + 6 O₂. Carbon dioxide "
                "is fixed into sugars, water is split and oxygen is released.",
            ),
        ),
        Section(
            2,
            "Light-dependent reactions",
            (
                "In the thylakoid membranes of chloroplasts, chlorophyll absorbs light; "
                "photosystem II splits water and the electron transport chain produces ATP and "
                "NADPH.",
            ),
        ),
        Section(
            2,
            "Calvin cycle",
            (
                "In the stroma, the enzyme RuBisCO fixes carbon dioxide into organic molecules, "
                "using ATP and NADPH from the light reactions to make glucose.",
            ),
        ),
    ),
    redirects=("Photosynthetic", "Photosynthesize"),
    section_redirects=(("Light reactions", "Light-dependent reactions"),),
)

DIABETES = Article(
    title="Diabetes",
    infobox_class="infobox",
    infobox=(
        ("Specialty", "Endocrinology"),
        ("Symptoms", "Frequent urination, increased thirst, increased hunger"),
        ("Complications", "Diabetic ketoacidosis, heart disease, stroke, kidney failure"),
        ("Treatment", "Healthy diet, physical exercise, metformin, insulin"),
    ),
    lead=(
        "<b>Diabetes mellitus</b>, commonly known as <b>diabetes</b>, is a group of common "
        "endocrine diseases characterized by sustained high blood sugar levels. Diabetes is "
        "due to either the pancreas not producing enough insulin, or the cells of the body "
        "becoming unresponsive to the hormone's effects.",
        "Untreated or poorly treated diabetes can result in many health complications. "
        "There is no cure; type 1 diabetes is managed with insulin injections, while type 2 "
        "diabetes may be managed with diet, exercise and medications such as metformin.",
    ),
    sections=(
        Section(
            2,
            "Signs and symptoms",
            (
                "The classic symptoms are polyuria (frequent urination), polydipsia (increased "
                "thirst) and polyphagia (increased hunger), together with weight loss and blurred "
                "vision.",
            ),
        ),
        Section(
            2,
            "Types",
            (
                "Diabetes is classified into type 1, type 2, gestational diabetes and other "
                "specific types.",
            ),
        ),
        Section(
            3,
            "Type 1",
            (
                "Type 1 diabetes is caused by autoimmune destruction of the insulin-producing "
                "beta cells of the pancreas and usually begins in childhood.",
            ),
        ),
        Section(
            3,
            "Type 2",
            (
                "Type 2 diabetes is characterized by insulin resistance and relative insulin "
                "deficiency and is strongly associated with obesity and lack of exercise.",
            ),
        ),
        Section(
            4,
            "Prediabetes",
            (
                "Prediabetes describes blood glucose that is higher than normal but below the "
                "threshold for diabetes; lifestyle changes can prevent progression.",
            ),
        ),
        Section(
            2,
            "Management",
            (
                "Management aims to keep blood sugar close to normal without causing "
                "hypoglycemia, through diet, exercise, weight loss, oral drugs and insulin.",
            ),
        ),
    ),
    references=(
        "&quot;Diabetes Fact sheet N°312&quot;. World Health Organization.",
        "American Diabetes Association (2024). &quot;Standards of Care in Diabetes&quot;.",
    ),
    redirects=("Diabetes mellitus", "Sugar diabetes"),
    section_redirects=(
        ("Type 2 diabetes mellitus", "Type 2"),
        ("Symptoms of diabetes", "Signs and symptoms"),
    ),
    navbox="medicine",
)

HYPERTENSION = Article(
    title="Hypertension",
    infobox=(
        ("Specialty", "Cardiology"),
        ("Symptoms", "None"),
        ("Complications", "Coronary artery disease, stroke, heart failure, kidney disease"),
    ),
    lead=(
        "<b>Hypertension</b>, also known as <b>high blood pressure</b>, is a long-term "
        "medical condition in which the blood pressure in the arteries is persistently "
        "elevated. High blood pressure usually does not cause symptoms itself.",
        "It is a major risk factor for stroke, coronary artery disease, heart failure and "
        "chronic kidney disease. Lifestyle changes and medications such as thiazide "
        "diuretics, ACE inhibitors and calcium channel blockers lower it.",
    ),
    sections=(
        Section(
            2,
            "Diagnosis",
            (
                "Hypertension is diagnosed when resting blood pressure is persistently at or "
                "above 130/80 or 140/90 mmHg, depending on the guideline.",
            ),
        ),
        Section(
            2,
            "Treatment",
            (
                "Reducing salt, losing weight, exercising and limiting alcohol lower blood "
                "pressure; first-line medicines include amlodipine and lisinopril.",
            ),
        ),
    ),
    redirects=("High blood pressure", "Arterial hypertension"),
    navbox="medicine",
)

ASTHMA = Article(
    title="Asthma",
    lead=(
        "<b>Asthma</b> is a common long-term inflammatory disease of the airways of the "
        "lungs. It is characterized by variable and recurring symptoms, reversible airflow "
        "obstruction and easily triggered bronchospasms.",
        "Symptoms include episodes of wheezing, coughing, chest tightness and shortness of "
        "breath. Inhaled corticosteroids prevent attacks and salbutamol relieves them.",
    ),
    sections=(
        Section(
            2,
            "Causes",
            (
                "Asthma is thought to be caused by a combination of genetic and environmental "
                "factors, including air pollution and allergens.",
            ),
        ),
        Section(
            2,
            "Management",
            (
                "Short-acting beta-2 agonists such as salbutamol are used for acute attacks; "
                "inhaled corticosteroids are the most effective long-term control medication.",
            ),
        ),
    ),
    redirects=("Bronchial asthma",),
    navbox="medicine",
)

INSULIN = Article(
    title="Insulin",
    lead=(
        "<b>Insulin</b> is a peptide hormone produced by beta cells of the pancreatic islets. "
        "It regulates the metabolism of carbohydrates, fats and protein by promoting the "
        "absorption of glucose from the blood into liver, fat and skeletal muscle cells.",
        "Insulin was discovered by Frederick Banting and Charles Best in 1921 and is used as "
        "a medication to treat diabetes.",
    ),
    sections=(
        Section(
            2,
            "Discovery",
            (
                "Banting, Best, Collip and Macleod purified insulin at the University of Toronto; "
                "the first patient, Leonard Thompson, was treated in January 1922.",
            ),
        ),
    ),
    redirects=("Insulin hormone",),
    navbox="medicine",
)

METFORMIN = Article(
    title="Metformin",
    lead=(
        "<b>Metformin</b>, sold under the brand name Glucophage among others, is the main "
        "first-line medication for the treatment of type 2 diabetes, particularly in people "
        "who are overweight.",
        "It is taken by mouth and works by decreasing glucose production in the liver. "
        "Common side effects include diarrhea, nausea and abdominal pain.",
    ),
    sections=(
        Section(
            2,
            "Medical uses",
            (
                "Metformin is also used for polycystic ovary syndrome and is not associated with "
                "weight gain or hypoglycemia when used alone.",
            ),
        ),
    ),
    redirects=("Glucophage",),
    navbox="medicine",
)

RAY_CHARLES = Article(
    title="Ray Charles",
    infobox_class="infobox biography vcard",
    infobox=(
        ("Born", "Ray Charles Robinson, September 23, 1930, Albany, Georgia"),
        ("Died", "June 10, 2004 (aged 73), Beverly Hills, California"),
        ("Genres", "Soul, rhythm and blues, jazz, country"),
        ("Instruments", "Vocals, piano"),
    ),
    lead=(
        "<b>Ray Charles Robinson</b> (September 23, 1930 – June 10, 2004) was an American "
        "singer, songwriter and pianist. He is regarded as one of the most iconic and "
        "influential musicians in history and was often referred to as &quot;the "
        "Genius&quot;.",
        "Charles pioneered the genre of soul music during the 1950s by combining blues, "
        "jazz, rhythm and blues and gospel styles into the music he recorded for Atlantic "
        "Records.",
    ),
    sections=(
        Section(
            2,
            "Early life",
            (
                "Charles was born in Albany, Georgia, and grew up in Greenville, Florida. He "
                "began to lose his sight at the age of five and was completely blind by seven; he "
                "attended the Florida School for the Deaf and the Blind, where he learned Braille "
                "music.",
            ),
        ),
        Section(
            2,
            "Career",
            (
                "His hits include &quot;I Got a Woman&quot;, &quot;What'd I Say&quot;, "
                "&quot;Georgia on My Mind&quot; and &quot;Hit the Road Jack&quot;.",
            ),
        ),
    ),
    redirects=("Ray Charles Robinson", "Brother Ray"),
    section_redirects=(("Ray Charles early life", "Early life"),),
)

LINKED_LIST = Article(
    title="Linked list",
    lead=(
        "In computer science, a <b>linked list</b> is a linear collection of data elements "
        "whose order is not given by their physical placement in memory. Instead, each "
        "element points to the next.",
        "Insertion and removal at a known position take constant time, but access by index "
        "takes linear time, and the nodes are scattered in memory, which hurts cache "
        "locality compared with a dynamic array.",
    ),
    sections=(
        Section(
            2,
            "Doubly linked list",
            (
                "Each node holds links to both the previous and the next node, as in C++'s "
                "<code>std::list</code> and Python's <code>collections.deque</code> blocks.",
            ),
        ),
    ),
    redirects=("Linked lists", "Singly linked list"),
    navbox="programming",
)

DYNAMIC_ARRAY = Article(
    title="Dynamic array",
    lead=(
        "In computer science, a <b>dynamic array</b>, growable array or resizable array is a "
        "random access, variable-size list data structure that allows elements to be added "
        "or removed. C++'s <code>std::vector</code> and Python's <code>list</code> are "
        "dynamic arrays.",
        "When the array is full it is reallocated with geometric growth, so appending an "
        "element takes amortized constant time.",
    ),
    sections=(
        Section(
            2,
            "Performance",
            (
                "Indexing is constant time and elements are contiguous, which makes iteration "
                "cache friendly; inserting in the middle requires shifting the following "
                "elements.",
            ),
        ),
    ),
    redirects=("Growable array", "Resizable array"),
    navbox="programming",
)

ARTICLES: tuple[Article, ...] = (
    PYTHON, CPP, C3, MULTIPLE, INHERITANCE, ASYNC_IO, THREAD, REGEX, GIT,
    LINKED_LIST, DYNAMIC_ARRAY, EULER_IDENTITY, EULER_FORMULA, BASEL, DERIVATIVE, PRIME,
    PHOTOSYNTHESIS, DIABETES, HYPERTENSION, ASTHMA, INSULIN, METFORMIN, RAY_CHARLES,
)  # fmt: skip

_NAVBOXES: dict[str, tuple[str, str, tuple[Article, ...]]] = {
    "programming": ("Programming languages and tools", "Software",
                    (PYTHON, CPP, GIT, REGEX, ASYNC_IO, THREAD, LINKED_LIST, DYNAMIC_ARRAY)),
    "oop": ("Object-oriented programming", "Concepts", (INHERITANCE, MULTIPLE, C3)),
    "math": ("Leonhard Euler", "Mathematics",
             (EULER_IDENTITY, EULER_FORMULA, BASEL, DERIVATIVE, PRIME)),
    "medicine": ("Endocrine and respiratory diseases", "Medicine",
                 (DIABETES, INSULIN, METFORMIN, HYPERTENSION, ASTHMA)),
}  # fmt: skip

#: One two-hop redirect chain, on purpose: 1.17 never writes one, but older and merged
#: archives do, and readers must follow them.
CHAIN = (Redirect(path="Python_(language)", target="Python_language", title="Python (language)"),)


def _navboxes() -> dict[str, str]:
    """Navbox HTML per key; links are relative from a top-level page, as every page is."""
    return {
        key: navbox(title, group, [(a.title, a.title) for a in members], "x")
        for key, (title, group, members) in _NAVBOXES.items()
    }


def build(path: Path) -> Path:
    """Write the demo Wikipedia archive at ``path``."""
    pages, redirects = article_entries(ARTICLES, host=HOST, navboxes=_navboxes())
    main = Page(
        path="index",
        title="Main Page",
        content=list_main_page(ARTICLES, METADATA["Title"]),
        front=False,
    )
    return write_zim(
        path,
        pages=[*pages, main, *asset_pages()],
        redirects=[*redirects, *CHAIN],
        metadata=METADATA,
        main_path="index",
    )
