class Parser:
    def __init__(self, *a, **k):
        raise RuntimeError("filecheck is not installed")


def pattern_for_opts(*a, **k):
    raise RuntimeError("filecheck is not installed")
