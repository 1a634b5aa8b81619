"""A stand-in for pytest, for bench/numba-suite/replay.py where pytest is
not installed: the few names numba-cuda's cudapy tests use (raises, warns,
importorskip, mark.skipif/xfail/usefixtures), with unittest's meanings."""
import contextlib
import importlib
import re
import unittest
import warnings


@contextlib.contextmanager
def raises(exc, match=None):
    try:
        yield
    except exc as e:
        if match is not None and not re.search(match, str(e)):
            raise AssertionError("%r does not match %r" % (str(e), match))
    else:
        raise AssertionError("DID NOT RAISE %r" % (exc,))


@contextlib.contextmanager
def warns(cls=Warning, match=None):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        yield w


def importorskip(name, *a, **k):
    try:
        return importlib.import_module(name)
    except ImportError:
        raise unittest.SkipTest("no module %s" % name)


def skip(reason=""):
    raise unittest.SkipTest(reason)


class _Mark:
    def skipif(self, cond, reason=""):
        return unittest.skipIf(cond, reason)

    def xfail(self, *a, **k):
        return lambda f: f

    def __getattr__(self, name):
        def deco(*a, **k):
            if len(a) == 1 and callable(a[0]) and not k:
                return a[0]
            return lambda f: f
        return deco


mark = _Mark()
