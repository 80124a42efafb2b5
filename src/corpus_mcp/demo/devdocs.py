"""Demo DevDocs archives (devdocs2zim v0.2.1): Python 3.13 and C++.

Python pages use Sphinx's shape after DevDocs' filters (``section[id]`` wrappers,
``dt[id]`` API anchors, the unwrapped local TOC list); C++ pages use cppreference's
(``hN[id]``). Titles follow devdocs2zim's rule (the last index entry that opens the
page), so several differ from the page's ``<h1>``: ``Functions``, ``std::stoll``.
"""

from __future__ import annotations

from pathlib import Path

from corpus_mcp.demo._devdocs import (
    DocPage,
    DocSet,
    api,
    docset_entries,
    heading,
    local_toc,
    metadata,
    pre,
    section,
)
from corpus_mcp.zim.writer import write_zim

PYTHON_FILE = "devdocs/devdocs_en_python_2026-05.zim"
CPP_FILE = "devdocs/devdocs_en_cpp_2026-04.zim"

PYTHON_DOCS = DocSet(
    slug="python",
    name="Python",
    version="3.13",
    attribution="© 2001–2025 Python Software Foundation<br>Licensed under the PSF License.",
    source_url="https://docs.python.org/3.13/",
    source_suffix=".html",
    licenses="Python: © 2001–2025 Python Software Foundation. Licensed under the PSF "
    "License, version 2.\nDevDocs: © 2013–2025 Thibaut Courouble and other contributors. "
    "Licensed under the Mozilla Public License v2.0.\n",
)

CPP_DOCS = DocSet(
    slug="cpp",
    name="C++",
    version="",
    attribution="© cppreference.com<br>Licensed under the Creative Commons "
    "Attribution-ShareAlike Unported License v3.0.",
    source_url="https://en.cppreference.com/w/",
    source_suffix="",
    licenses="C++: © cppreference.com. Licensed under the Creative Commons "
    "Attribution-ShareAlike Unported License v3.0.\nDevDocs: © 2013–2025 Thibaut "
    "Courouble and other contributors. Licensed under the Mozilla Public License v2.0.\n",
)


def _py(path: str, title: str, type_: str, h1: str, *parts: str) -> DocPage:
    return DocPage(path, title, type_, f"<h1>{h1}</h1>" + "".join(parts))


PY = "python"

PYTHON_PAGES: tuple[DocPage, ...] = (
    _py(
        "index",
        "Python Documentation",
        "Index",
        "Python",
        "<p>Welcome! This is the official documentation for Python 3.13.</p>",
        '<ul><li><a href="tutorial/index">The Python Tutorial</a></li>'
        '<li><a href="library/functions">Built-in Functions</a></li>'
        '<li><a href="reference/datamodel">Data model</a></li>'
        '<li><a href="glossary">Glossary</a></li></ul>',
    ),
    _py(
        "library/functions",
        "Functions",
        "Built-in Functions",
        "Built-in Functions",
        "<p>The Python interpreter has a number of functions and types built into it that "
        "are always available. They are listed here in alphabetical order.</p>",
        api(
            "abs",
            "abs(x)",
            "Return the absolute value of a number. The argument may be an "
            "integer, a floating-point number, or an object implementing <code>__abs__()</code>. "
            "If the argument is a complex number, its magnitude is returned.",
        ),
        api(
            "enumerate",
            "enumerate(iterable, start=0)",
            "Return an enumerate object. The "
            "<code>__next__()</code> method returns a tuple containing a count (from start) "
            "and the values obtained from iterating over iterable.",
        ),
        api(
            "isinstance",
            "isinstance(object, classinfo)",
            "Return True if the object "
            "argument is an instance of the classinfo argument, or of a (direct, indirect, or "
            "virtual) subclass thereof.",
        ),
        api(
            "len",
            "len(s)",
            "Return the length (the number of items) of an object. The "
            "argument may be a sequence (such as a string, bytes, tuple, list, or range) or a "
            "collection (such as a dictionary, set, or frozen set).",
        ),
        api(
            "sorted",
            "sorted(iterable, /, *, key=None, reverse=False)",
            "Return a new "
            "sorted list from the items in iterable. The built-in sorted() function is "
            "guaranteed to be stable. Use <code>key=lambda item: item[1]</code> to sort a "
            "dictionary's items by value.",
        ),
        api(
            "super",
            "class super(type, object_or_type=None)",
            "Return a proxy object that "
            "delegates method calls to a parent or sibling class of type. This is useful for "
            "accessing inherited methods that have been overridden in a class.",
            "The object_or_type determines the method resolution order to be searched. The "
            "search starts from the class right after the type. For example, if "
            "<code>__mro__</code> of object_or_type is <code>D -&gt; B -&gt; C -&gt; A -&gt; "
            "object</code> and the value of type is B, then super() searches "
            "<code>C -&gt; A -&gt; object</code>.",
            "There are two typical use cases for super. In a class hierarchy with single "
            "inheritance, super can be used to refer to parent classes without naming them "
            "explicitly. The second use case is to support cooperative multiple inheritance "
            "in a dynamic execution environment, which makes it possible to implement "
            "diamond diagrams where multiple base classes implement the same method.",
            pre(
                "class C(B):\n    def method(self, arg):\n        super().method(arg)"
                "    # This does the same thing as:\n"
                "                               # super(C, self).method(arg)",
                PY,
            ),
            kind="class",
        ),
        api(
            "zip",
            "zip(*iterables, strict=False)",
            "Iterate over several iterables in "
            "parallel, producing tuples with an item from each one. With "
            "<code>strict=True</code> a ValueError is raised if the lengths differ.",
        ),
    ),
    _py(
        "library/stdtypes",
        "Built-in Types",
        "Built-in Types",
        "Built-in Types",
        "<p>The principal built-in types are numerics, sequences, mappings, classes, "
        "instances and exceptions.</p>",
        local_toc(
            ("truth-value-testing", "Truth Value Testing"),
            ("text-sequence-type-str", "Text Sequence Type — str"),
            ("mapping-types-dict", "Mapping Types — dict"),
        ),
        section(
            "truth-value-testing",
            "Truth Value Testing",
            "Any object can be tested for truth value. By default an object is "
            "considered true unless its class defines <code>__bool__()</code> returning "
            "False or <code>__len__()</code> returning zero.",
        ),
        section(
            "text-sequence-type-str",
            "Text Sequence Type — str",
            "Textual data in Python is handled with str objects, or strings. Strings are "
            "immutable sequences of Unicode code points.",
            api(
                "str.join",
                "str.join(iterable)",
                "Return a string which is the "
                "concatenation of the strings in iterable. A TypeError will be raised if "
                "there are any non-string values in iterable. The separator between "
                "elements is the string providing this method.",
                pre("', '.join(['spam', 'eggs', 'ham'])  # 'spam, eggs, ham'", PY),
                kind="method",
            ),
            api(
                "str.split",
                "str.split(sep=None, maxsplit=-1)",
                "Return a list of the words in the string, using sep as the delimiter string.",
                kind="method",
            ),
            api(
                "str.format",
                "str.format(*args, **kwargs)",
                "Perform a string "
                "formatting operation. Formatted string literals (f-strings) are usually "
                "more convenient.",
                kind="method",
            ),
        ),
        section(
            "mapping-types-dict",
            "Mapping Types — dict",
            "A mapping object maps hashable values to arbitrary objects. Dictionaries "
            "preserve insertion order. The union operator <code>d | other</code> creates "
            "a new dictionary merging the keys and values of both.",
            api(
                "dict.get",
                "dict.get(key, default=None)",
                "Return the value for key if key is in the dictionary, else default.",
                kind="method",
            ),
        ),
    ),
    _py(
        "library/string",
        "string",
        "Text Processing",
        "string — Common string operations",
        section(
            "format-string-syntax",
            "Format String Syntax",
            "The str.format() method and the Formatter class share the same syntax for "
            "format strings: replacement fields are surrounded by curly braces {}.",
            pre("'{0}, {1}, {2}'.format('a', 'b', 'c')", PY),
        ),
        section(
            "template-strings",
            "Template strings",
            "Template strings provide simpler string substitutions using $-based placeholders.",
        ),
    ),
    _py(
        "library/re",
        "re",
        "Text Processing",
        "re — Regular expression operations",
        "<p>This module provides regular expression matching operations similar to those "
        "found in Perl.</p>",
        section(
            "regular-expression-syntax",
            "Regular Expression Syntax",
            "A regular expression specifies a set of strings that matches it. The "
            "<code>*</code>, <code>+</code> and <code>?</code> quantifiers are all greedy; "
            "adding ? after the quantifier makes it perform the match in non-greedy or "
            "minimal fashion: <code>&lt;.*?&gt;</code> matches only the first tag.",
        ),
        section(
            "module-contents",
            "Module Contents",
            api(
                "re.compile",
                "re.compile(pattern, flags=0)",
                "Compile a regular expression pattern into a regular expression object.",
            ),
            api(
                "re.search",
                "re.search(pattern, string, flags=0)",
                "Scan through string "
                "looking for the first location where the regular expression pattern "
                "produces a match, and return a corresponding Match.",
            ),
            api(
                "re.findall",
                "re.findall(pattern, string, flags=0)",
                "Return all non-overlapping matches of pattern in string, as a list of strings.",
            ),
            api(
                "re.sub",
                "re.sub(pattern, repl, string, count=0, flags=0)",
                "Return the "
                "string obtained by replacing the leftmost non-overlapping occurrences of "
                "pattern in string by the replacement repl.",
            ),
        ),
    ),
    _py(
        "library/asyncio",
        "asyncio",
        "Networking & Interprocess Communication",
        "asyncio — Asynchronous I/O",
        "<p>asyncio is a library to write concurrent code using the async/await syntax. It "
        "is used as a foundation for multiple Python asynchronous frameworks that provide "
        "high-performance network and web servers, database connection libraries and "
        "distributed task queues.</p>",
        pre(
            "import asyncio\n\nasync def main():\n    print('Hello ...')\n"
            "    await asyncio.sleep(1)\n    print('... World!')\n\nasyncio.run(main())",
            PY,
        ),
        "<p>asyncio is often a perfect fit for IO-bound and high-level structured network "
        "code. For CPU-bound work, use threads or processes instead; the event loop runs in "
        "a single thread.</p>",
        api(
            "asyncio.run",
            "asyncio.run(coro, *, debug=None, loop_factory=None)",
            "Execute "
            "the coroutine coro and return the result. This function runs the passed "
            "coroutine, taking care of managing the asyncio event loop.",
        ),
    ),
    _py(
        "library/asyncio-task",
        "Coroutines and Tasks",
        "Networking & Interprocess Communication",
        "Coroutines and Tasks",
        local_toc(
            ("coroutines", "Coroutines"),
            ("creating-tasks", "Creating Tasks"),
            ("task-groups", "Task Groups"),
        ),
        section(
            "coroutines",
            "Coroutines",
            "Coroutines declared with the async/await syntax are the preferred way of "
            "writing asyncio applications. Simply calling a coroutine will not schedule "
            "it to be executed.",
        ),
        section(
            "creating-tasks",
            "Creating Tasks",
            api(
                "asyncio.create_task",
                "asyncio.create_task(coro, *, name=None)",
                "Wrap the coro coroutine into a Task and schedule its execution. Save a "
                "reference to the result of this function, to avoid a task disappearing "
                "mid-execution.",
            ),
        ),
        section(
            "task-groups",
            "Task Groups",
            "Task groups combine a task creation API with a convenient and reliable way "
            "to wait for all tasks in the group to finish, in the spirit of structured "
            "concurrency.",
            api(
                "asyncio.TaskGroup",
                "class asyncio.TaskGroup",
                "An asynchronous context "
                "manager holding a group of tasks. If any task fails, the remaining tasks "
                "are cancelled.",
                kind="class",
            ),
        ),
        section(
            "sleeping",
            "Sleeping",
            api(
                "asyncio.sleep",
                "asyncio.sleep(delay, result=None)",
                "Block for delay "
                "seconds. sleep() always suspends the current task, allowing other tasks "
                "to run.",
            ),
        ),
        section(
            "running-in-threads",
            "Running in Threads",
            api(
                "asyncio.to_thread",
                "asyncio.to_thread(func, /, *args, **kwargs)",
                "Asynchronously run function func in a separate thread, so blocking IO "
                "does not block the event loop.",
            ),
        ),
    ),
    _py(
        "library/threading",
        "threading",
        "Concurrent Execution",
        "threading — Thread-based parallelism",
        "<p>This module constructs higher-level threading interfaces on top of the lower "
        "level _thread module.</p>",
        "<p>In CPython, due to the Global Interpreter Lock, only one thread can execute "
        "Python code at once. Threading is still an appropriate model if you want to run "
        "multiple I/O-bound tasks simultaneously.</p>",
        section(
            "thread-objects",
            "Thread Objects",
            api(
                "threading.Thread",
                "class threading.Thread(group=None, target=None, "
                "name=None, args=(), kwargs={}, *, daemon=None)",
                "This class represents an activity that is run in a separate thread of control.",
                kind="class",
            ),
        ),
        section(
            "lock-objects",
            "Lock Objects",
            api(
                "threading.Lock",
                "class threading.Lock",
                "The class implementing "
                "primitive lock objects. Once a thread has acquired a lock, subsequent "
                "attempts to acquire it block until it is released.",
                kind="class",
            ),
        ),
    ),
    _py(
        "library/collections",
        "collections",
        "Data Types",
        "collections — Container datatypes",
        section(
            "deque-objects",
            "deque objects",
            api(
                "collections.deque",
                "class collections.deque([iterable[, maxlen]])",
                "Deques are a generalization of stacks and queues; they support "
                "thread-safe, memory efficient appends and pops from either side in "
                "approximately O(1) performance.",
                kind="class",
            ),
        ),
        section(
            "counter-objects",
            "Counter objects",
            api(
                "collections.Counter",
                "class collections.Counter([iterable-or-mapping])",
                "A Counter is a dict subclass for counting hashable objects.",
                kind="class",
            ),
        ),
        section(
            "defaultdict-objects",
            "defaultdict objects",
            api(
                "collections.defaultdict",
                "class collections.defaultdict(default_factory=None, /, [...])",
                "A dict subclass that calls a factory function to supply missing values.",
                kind="class",
            ),
        ),
    ),
    _py(
        "library/itertools",
        "itertools",
        "Functional Programming Modules",
        "itertools — Functions creating iterators for efficient looping",
        api(
            "itertools.chain",
            "itertools.chain(*iterables)",
            "Make an iterator that returns "
            "elements from the first iterable until it is exhausted, then proceeds to the "
            "next iterable.",
        ),
        api(
            "itertools.groupby",
            "itertools.groupby(iterable, key=None)",
            "Make an iterator that returns consecutive keys and groups from the iterable.",
        ),
        api(
            "itertools.batched",
            "itertools.batched(iterable, n, *, strict=False)",
            "Batch data from the iterable into tuples of length n.",
        ),
    ),
    _py(
        "library/functools",
        "functools",
        "Functional Programming Modules",
        "functools — Higher-order functions and operations on callable objects",
        api(
            "functools.lru_cache",
            "@functools.lru_cache(maxsize=128, typed=False)",
            "Decorator to wrap a function with a memoizing callable that saves up to the "
            "maxsize most recent calls.",
        ),
        api(
            "functools.wraps",
            "@functools.wraps(wrapped)",
            "Convenience function for "
            "invoking update_wrapper() as a function decorator when defining a wrapper "
            "function.",
        ),
        api(
            "functools.partial",
            "functools.partial(func, /, *args, **keywords)",
            "Return a "
            "new partial object which when called will behave like func called with the "
            "positional arguments args and keyword arguments keywords.",
        ),
    ),
    _py(
        "library/os",
        "os",
        "Generic Operating System Services",
        "os — Miscellaneous operating system interfaces",
        api(
            "os.environ",
            "os.environ",
            "A mapping object where keys and values are strings "
            "that represent the process environment.",
            kind="data",
        ),
        api(
            "os.walk",
            "os.walk(top, topdown=True, onerror=None, followlinks=False)",
            "Generate the file names in a directory tree by walking the tree either top-down "
            "or bottom-up.",
        ),
    ),
    _py(
        "library/pathlib",
        "pathlib",
        "File and Directory Access",
        "pathlib — Object-oriented filesystem paths",
        "<p>This module offers classes representing filesystem paths with semantics "
        "appropriate for different operating systems.</p>",
        api(
            "pathlib.Path.read_text",
            "Path.read_text(encoding=None, errors=None, newline=None)",
            "Return the decoded contents of the pointed-to file as a string.",
            kind="method",
        ),
        api(
            "pathlib.Path.open",
            "Path.open(mode='r', buffering=-1, encoding=None)",
            "Open "
            "the file pointed to by the path; iterate over the returned file object to read "
            "a file line by line.",
            kind="method",
        ),
    ),
    _py(
        "library/json",
        "json",
        "Internet Data Handling",
        "json — JSON encoder and decoder",
        api(
            "json.dumps",
            "json.dumps(obj, *, indent=None, sort_keys=False, **kw)",
            "Serialize obj to a JSON formatted str.",
        ),
        api(
            "json.loads",
            "json.loads(s, *, cls=None, **kw)",
            "Deserialize s (a str, bytes "
            "or bytearray instance containing a JSON document) to a Python object.",
        ),
    ),
    _py(
        "library/typing",
        "typing",
        "Development Tools",
        "typing — Support for type hints",
        "<p>The Python runtime does not enforce function and variable type annotations. They "
        "can be used by third party tools such as type checkers, IDEs and linters.</p>",
        api(
            "typing.Protocol",
            "class typing.Protocol(Generic)",
            "Base class for protocol classes, used for structural subtyping (static duck-typing).",
            kind="class",
        ),
        api(
            "typing.TypeVar",
            "class typing.TypeVar(name, *constraints, bound=None)",
            "Type variable, used by generic classes and functions.",
            kind="class",
        ),
    ),
    _py(
        "library/dataclasses",
        "dataclasses",
        "Python Runtime Services",
        "dataclasses — Data Classes",
        api(
            "dataclasses.dataclass",
            "@dataclasses.dataclass(*, init=True, repr=True, "
            "eq=True, order=False, frozen=False, slots=False)",
            "This function is a decorator "
            "that is used to add generated special methods such as __init__() and __repr__() "
            "to classes.",
        ),
        api(
            "dataclasses.field",
            "dataclasses.field(*, default=MISSING, default_factory=MISSING)",
            "Use default_factory for mutable defaults such as "
            "lists instead of sharing one list between instances.",
        ),
    ),
    _py(
        "library/contextlib",
        "contextlib",
        "Python Runtime Services",
        "contextlib — Utilities for with-statement contexts",
        api(
            "contextlib.contextmanager",
            "@contextlib.contextmanager",
            "This function is a "
            "decorator that can be used to define a factory function for with statement "
            "context managers, without needing to create a class.",
        ),
        api(
            "contextlib.suppress",
            "contextlib.suppress(*exceptions)",
            "Return a context "
            "manager that suppresses any of the specified exceptions if they occur.",
        ),
    ),
    _py(
        "library/subprocess",
        "subprocess",
        "Concurrent Execution",
        "subprocess — Subprocess management",
        api(
            "subprocess.run",
            "subprocess.run(args, *, stdin=None, capture_output=False, check=False, text=None)",
            "Run the command described by args. Wait for command "
            "to complete, then return a CompletedProcess instance.",
        ),
    ),
    _py(
        "library/math",
        "math",
        "Numeric & Mathematical Modules",
        "math — Mathematical functions",
        api("math.sqrt", "math.sqrt(x)", "Return the square root of x."),
        api(
            "math.isclose",
            "math.isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0)",
            "Return True if the values a and b are close to each other.",
        ),
        api(
            "math.e",
            "math.e",
            "The mathematical constant e = 2.718281…, to available precision.",
            kind="data",
        ),
    ),
    _py(
        "library/unittest",
        "unittest",
        "Development Tools",
        "unittest — Unit testing framework",
        api(
            "unittest.TestCase",
            "class unittest.TestCase(methodName='runTest')",
            "Instances "
            "of the TestCase class represent the logical test units in the unittest "
            "universe.",
            kind="class",
        ),
    ),
    _py(
        "library/abc",
        "abc",
        "Python Runtime Services",
        "abc — Abstract Base Classes",
        api(
            "abc.ABC",
            "class abc.ABC",
            "A helper class that has ABCMeta as its metaclass.",
            kind="class",
        ),
        api(
            "abc.abstractmethod",
            "@abc.abstractmethod",
            "A decorator indicating abstract "
            "methods; a class with unimplemented abstract methods cannot be instantiated.",
        ),
    ),
    _py(
        "tutorial/index",
        "The Python Tutorial",
        "Tutorial",
        "The Python Tutorial",
        "<p>Python is an easy to learn, powerful programming language. It has efficient "
        "high-level data structures and a simple but effective approach to object-oriented "
        "programming.</p>",
        '<ul><li><a href="controlflow">4. More Control Flow Tools</a></li>'
        '<li><a href="errors">8. Errors and Exceptions</a></li>'
        '<li><a href="classes">9. Classes</a></li></ul>',
    ),
    _py(
        "tutorial/controlflow",
        "4. More Control Flow Tools",
        "Tutorial",
        "More Control Flow Tools",
        section(
            "if-statements",
            "if Statements",
            "Perhaps the most well-known statement type is the if statement.",
            pre("if x < 0:\n    print('Negative')\nelif x == 0:\n    print('Zero')", PY),
        ),
        section(
            "for-statements",
            "for Statements",
            "Python's for statement iterates over the items of any sequence, in the "
            "order that they appear in the sequence.",
        ),
        section(
            "default-argument-values",
            "Default Argument Values",
            "Important warning: the default value is evaluated only once. This makes a "
            "difference when the default is a mutable object such as a list, dictionary, "
            "or instances of most classes.",
            pre(
                "def f(a, L=None):\n    if L is None:\n        L = []\n    L.append(a)\n"
                "    return L",
                PY,
            ),
            level=3,
        ),
    ),
    _py(
        "tutorial/errors",
        "8. Errors and Exceptions",
        "Tutorial",
        "Errors and Exceptions",
        section(
            "handling-exceptions",
            "Handling Exceptions",
            "It is possible to write programs that handle selected exceptions with the "
            "try statement.",
            pre("try:\n    x = int(input())\nexcept ValueError:\n    print('Oops!')", PY),
        ),
        section(
            "exception-groups",
            "Raising and Handling Multiple Unrelated Exceptions",
            "The builtin ExceptionGroup wraps a list of exception instances; except* "
            "matches subgroups of it.",
        ),
    ),
    _py(
        "tutorial/classes",
        "9. Classes",
        "Tutorial",
        "Classes",
        "<p>Classes provide a means of bundling data and functionality together.</p>",
        local_toc(
            ("inheritance", "Inheritance"),
            ("multiple-inheritance", "Multiple Inheritance"),
            ("private-variables", "Private Variables"),
        ),
        section(
            "inheritance",
            "Inheritance",
            "Of course, a language feature would not be worthy of the name class without "
            "supporting inheritance. The name BaseClassName must be defined in a "
            "namespace accessible from the scope containing the derived class definition.",
            "Derived classes may override methods of their base classes. An overriding "
            "method in a derived class may in fact want to extend rather than simply "
            "replace the base class method of the same name: call "
            "<code>BaseClassName.methodname(self, arguments)</code>.",
            section(
                "multiple-inheritance",
                "Multiple Inheritance",
                "Python supports a form of multiple inheritance as well. For most "
                "purposes, in the simplest cases, you can think of the search for "
                "attributes inherited from a parent class as depth-first, left-to-"
                "right, not searching twice in the same class where there is an "
                "overlap in the hierarchy.",
                "In fact, it is slightly more complex than that; the method "
                "resolution order changes dynamically to support cooperative calls to "
                "super(). Dynamic ordering is necessary because all cases of multiple "
                "inheritance exhibit one or more diamond relationships. The dynamic "
                "algorithm linearizes the search order in a way that preserves the "
                "left-to-right ordering specified in each class, that calls each "
                "parent only once, and that is monotonic.",
                pre("class DerivedClassName(Base1, Base2, Base3):\n    <statement-1>\n    ...", PY),
                level=3,
            ),
        ),
        section(
            "private-variables",
            "Private Variables",
            "Name mangling: any identifier of the form __spam is textually replaced with "
            "_classname__spam.",
        ),
    ),
    _py(
        "reference/datamodel",
        "3. Data model",
        "Language Reference",
        "Data model",
        local_toc(
            ("objects-values-and-types", "Objects, values and types"),
            ("special-method-names", "Special method names"),
        ),
        section(
            "objects-values-and-types",
            "Objects, values and types",
            "Objects are Python's abstraction for data. Every object has an identity, a "
            "type and a value.",
        ),
        section(
            "special-method-names",
            "Special method names",
            "A class can implement certain operations that are invoked by special syntax "
            "by defining methods with special names.",
            api(
                "object.__init__",
                "object.__init__(self[, ...])",
                "Called after the "
                "instance has been created by __new__(), but before it is returned to the "
                "caller.",
                kind="method",
            ),
            api(
                "object.__new__",
                "object.__new__(cls[, ...])",
                "Called to create a new "
                "instance of class cls. __new__() is a static method that takes the class "
                "as its first argument.",
                kind="method",
            ),
            api(
                "object.__len__",
                "object.__len__(self)",
                "Called to implement the built-in function len().",
                kind="method",
            ),
        ),
        section(
            "resolving-mro-entries",
            "Resolving MRO entries",
            "The C3 linearization determines the method resolution order; a class's "
            "__mro__ attribute is a tuple of classes that are considered when looking for "
            "base classes during method resolution.",
            level=3,
        ),
    ),
    _py(
        "reference/compound_stmts",
        "8. Compound statements",
        "Language Reference",
        "Compound statements",
        section(
            "the-with-statement",
            "The with statement",
            "The with statement is used to wrap the execution of a block with methods "
            "defined by a context manager.",
        ),
        section(
            "coroutines",
            "Coroutines",
            api(
                "async-def",
                "async def",
                "Execution of Python coroutines can be suspended and resumed at many points.",
                kind="keyword",
            ),
        ),
    ),
    _py(
        "glossary",
        "Glossary",
        "Glossary",
        "Glossary",
        '<dl class="glossary"><dt id="term-GIL">GIL</dt><dd><p>See global interpreter lock.'
        '</p></dd><dt id="term-method-resolution-order">method resolution order</dt><dd><p>'
        "Method Resolution Order is the order in which base classes are searched for a "
        'member during lookup.</p></dd><dt id="term-coroutine">coroutine</dt><dd><p>'
        "Coroutines are a more generalized form of subroutines.</p></dd></dl>",
    ),
    _py(
        "howto/regex",
        "Regular Expression HOWTO",
        "Howto",
        "Regular Expression HOWTO",
        section(
            "greedy-versus-non-greedy",
            "Greedy versus Non-Greedy",
            "When repeating a regular expression, as in a*, the resulting action is to "
            "consume as much of the pattern as possible. The non-greedy qualifiers *?, "
            "+?, ?? match as little text as possible.",
        ),
    ),
)


def _cpp(path: str, title: str, type_: str, h1: str, *parts: str) -> DocPage:
    return DocPage(path, title, type_, f"<h1>{h1}</h1>" + "".join(parts))


CPP = "cpp"

CPP_PAGES: tuple[DocPage, ...] = (
    _cpp(
        "index",
        "C++ Documentation",
        "Index",
        "C++ reference",
        "<p>C++98, C++03, C++11, C++14, C++17, C++20, C++23, C++26.</p>",
        '<ul><li><a href="cpp/container">Containers library</a></li>'
        '<li><a href="cpp/memory">Memory management library</a></li></ul>',
    ),
    _cpp(
        "cpp/container/vector",
        "std::vector",
        "Containers",
        "std::vector",
        pre("template<class T, class Allocator = std::allocator<T>>\nclass vector;", CPP),
        "<p>std::vector is a sequence container that encapsulates dynamic size arrays. The "
        "elements are stored contiguously, which means that elements can be accessed not "
        "only through iterators, but also using offsets to regular pointers to elements.</p>",
        "<p>The complexity of common operations: random access is constant O(1); insertion "
        "or removal of elements at the end is amortized constant; insertion or removal "
        "elsewhere is linear in the distance to the end.</p>",
        heading(
            "Iterator_invalidation",
            "Iterator invalidation",
            "push_back and emplace_back invalidate all iterators if the new size is "
            "greater than the old capacity.",
        ),
        heading(
            "Member_functions",
            "Member functions",
            "push_back adds an element to the end; reserve reserves storage; size "
            "returns the number of elements; operator[] accesses a specified element.",
        ),
        heading(
            "Example",
            "Example",
            pre(
                "#include <vector>\nint main() {\n    std::vector<int> v = {8, 4, 5, 9};"
                "\n    v.push_back(6);\n}",
                CPP,
            ),
        ),
    ),
    _cpp(
        "cpp/container/list",
        "std::list",
        "Containers",
        "std::list",
        "<p>std::list is a container that supports constant time insertion and removal of "
        "elements from anywhere in the container. Fast random access is not supported. It "
        "is usually implemented as a doubly-linked list.</p>",
        heading(
            "Member_functions",
            "Member functions",
            "splice moves elements from another list; sort sorts the elements; "
            "push_front inserts an element to the beginning.",
        ),
    ),
    _cpp(
        "cpp/container/map",
        "std::map",
        "Containers",
        "std::map",
        "<p>std::map is a sorted associative container that contains key-value pairs with "
        "unique keys. Keys are sorted by using the comparison function Compare. Search, "
        "removal, and insertion operations have logarithmic complexity. Maps are usually "
        "implemented as red-black trees.</p>",
        heading(
            "Member_functions",
            "Member functions",
            "insert, emplace, find, count and lower_bound; operator[] inserts a "
            "default-constructed value when the key is missing.",
        ),
    ),
    _cpp(
        "cpp/container/unordered_map",
        "std::unordered_map",
        "Containers",
        "std::unordered_map",
        "<p>std::unordered_map is an associative container that contains key-value pairs "
        "with unique keys. Search, insertion, and removal of elements have average "
        "constant-time complexity. Elements are organized into buckets by hash.</p>",
    ),
    _cpp(
        "cpp/string/basic_string/stol",
        "std::stoll",
        "Strings",
        "std::stoi, std::stol, std::stoll",
        pre(
            "int stoi(const std::string& str, std::size_t* pos = nullptr, int base = 10);"
            "\nlong stol(const std::string& str, std::size_t* pos = nullptr, int base = 10);"
            "\nlong long stoll(const std::string& str, std::size_t* pos = nullptr, "
            "int base = 10);",
            CPP,
        ),
        "<p>Interprets a signed integer value in the string str.</p>",
        heading(
            "Exceptions",
            "Exceptions",
            "std::invalid_argument if no conversion could be performed; "
            "std::out_of_range if the converted value would fall out of the range of "
            "the result type.",
        ),
    ),
    _cpp(
        "cpp/string/basic_string",
        "std::basic_string",
        "Strings",
        "std::basic_string",
        "<p>The class template basic_string stores and manipulates sequences of "
        "character-like objects. std::string is std::basic_string&lt;char&gt;.</p>",
    ),
    _cpp(
        "cpp/memory/unique_ptr",
        "std::unique_ptr",
        "Memory",
        "std::unique_ptr",
        "<p>std::unique_ptr is a smart pointer that owns and manages another object through "
        "a pointer and disposes of that object when the unique_ptr goes out of scope.</p>",
        "<p>unique_ptr is not copyable, only movable: ownership is transferred with "
        "std::move. Use std::make_unique to create one.</p>",
        heading(
            "Example",
            "Example",
            pre("auto p = std::make_unique<Widget>();\nauto q = std::move(p);", CPP),
        ),
    ),
    _cpp(
        "cpp/memory/shared_ptr",
        "std::shared_ptr",
        "Memory",
        "std::shared_ptr",
        "<p>std::shared_ptr is a smart pointer that retains shared ownership of an object "
        "through a pointer. Several shared_ptr objects may own the same object; the object "
        "is destroyed when the last remaining shared_ptr owning it is destroyed. A "
        "reference count is kept in a control block.</p>",
    ),
    _cpp(
        "cpp/algorithm/sort",
        "std::sort",
        "Algorithms",
        "std::sort",
        "<p>Sorts the elements in the range [first, last) in non-descending order. The "
        "order of equal elements is not guaranteed to be preserved; use std::stable_sort "
        "for that. Complexity O(N·log(N)) comparisons.</p>",
        heading(
            "Example", "Example", pre("std::sort(v.begin(), v.end(), std::greater<int>());", CPP)
        ),
    ),
    _cpp(
        "cpp/utility/move",
        "std::move",
        "Utilities",
        "std::move",
        "<p>std::move is used to indicate that an object t may be moved from, allowing the "
        "efficient transfer of resources from t to another object. It is exactly "
        "equivalent to a static_cast to an rvalue reference type.</p>",
    ),
    _cpp(
        "cpp/thread/thread",
        "std::thread",
        "Thread support",
        "std::thread",
        "<p>The class thread represents a single thread of execution. Threads begin "
        "execution immediately upon construction; join waits for a thread to finish.</p>",
    ),
    _cpp(
        "cpp/thread/mutex",
        "std::mutex",
        "Thread support",
        "std::mutex",
        "<p>The mutex class is a synchronization primitive that can be used to protect "
        "shared data from being simultaneously accessed by multiple threads. Prefer "
        "std::lock_guard or std::scoped_lock to lock it.</p>",
    ),
    _cpp(
        "cpp/language/virtual",
        "virtual function specifier",
        "Language",
        "virtual function specifier",
        "<p>The virtual specifier specifies that a non-static member function is virtual "
        "and supports dynamic dispatch.</p>",
        heading(
            "Virtual_destructor",
            "Virtual destructor",
            "Deleting an object through a pointer to base invokes undefined behavior "
            "unless the destructor in the base class is virtual.",
        ),
    ),
    _cpp(
        "cpp/language/derived_class",
        "Derived classes",
        "Language",
        "Derived classes",
        "<p>Any class type may be declared as derived from one or more base classes.</p>",
        heading(
            "Virtual_base_classes",
            "Virtual base classes",
            "For each distinct base class that is specified virtual, the most derived "
            "object contains only one base class subobject of that type, which solves "
            "the diamond problem of multiple inheritance.",
        ),
    ),
    _cpp(
        "cpp/language/lambda",
        "Lambda expressions",
        "Language",
        "Lambda expressions",
        "<p>Constructs a closure: an unnamed function object capable of capturing variables "
        "in scope.</p>",
        pre("auto add = [](int a, int b) { return a + b; };", CPP),
    ),
    _cpp(
        "cpp/language/range-for",
        "Range-based for loop",
        "Language",
        "Range-based for loop",
        "<p>Executes a for loop over a range: <code>for (auto&amp; x : v)</code> iterates "
        "over every element of the container v.</p>",
    ),
)


def build(path: Path) -> Path:
    """Write the demo DevDocs Python archive at ``path``."""
    return write_zim(
        path,
        pages=docset_entries(PYTHON_DOCS, PYTHON_PAGES),
        metadata=metadata(PYTHON_DOCS, "2026-05-02"),
        main_path="index",
    )


def build_cpp(path: Path) -> Path:
    """Write the demo DevDocs C++ archive at ``path``."""
    return write_zim(
        path,
        pages=docset_entries(CPP_DOCS, CPP_PAGES),
        metadata=metadata(CPP_DOCS, "2026-04-18"),
        main_path="index",
    )
