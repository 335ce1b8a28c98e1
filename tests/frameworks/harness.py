"""What the frameworks tests share: each case runs on its own, a failure is
reported with its reason and the rest still run, and the exit status says
whether any failed."""
import sys

failures = []


def case(fn):
    try:
        fn()
        print(f"ok   {fn.__name__}")
    except Exception as e:  # a failure of one case is reported and the rest run
        failures.append(fn.__name__)
        print(f"FAIL {fn.__name__}: {type(e).__name__}: {e}")
    return fn


def finish():
    if failures:
        print(f"{len(failures)} failed: {', '.join(failures)}")
        sys.exit(1)
