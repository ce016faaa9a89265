"""Fixtures shared by the test modules."""

import os

import pytest

from mockgo.play.gtp_client import find_gnugo


@pytest.fixture(scope="session")
def gnugo_path():
    """The GnuGo binary, for the tests that use GnuGo as a rules oracle.

    Without GnuGo those tests are skipped, except on CI (``CI=true``), where
    .ci/run installs it: there a missing GnuGo is an error, not a skip, so
    the oracle tests cannot silently stop running.
    """
    path = find_gnugo()
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("GnuGo is not installed, but CI=true: .ci/run should have installed "
                        "it (apt-get install gnugo); the rules-oracle tests cannot run",
                        pytrace=False)
        pytest.skip("GnuGo is not installed (apt-get install gnugo): "
                    "no rules oracle to compare against")
    return path
