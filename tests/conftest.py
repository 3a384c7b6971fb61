"""Project-wide pytest options."""


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the golden event logs under tests/golden/ (only on purpose)")
