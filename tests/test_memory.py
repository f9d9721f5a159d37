"""The command line's process turns NumPy's huge-page advice off unless the user chose."""

import pytest
from numpy._core import multiarray

from judgestats.cli import main
from judgestats.memory import no_hugepage_advice


@pytest.fixture
def advice_on():
    """NumPy's advice on for the test, the previous state restored after it."""
    previous = multiarray._set_madvise_hugepage(True)
    yield
    multiarray._set_madvise_hugepage(previous)


def _advice() -> bool:
    """Whether the advice is on (reading it means setting it: set it back)."""
    state = multiarray._set_madvise_hugepage(True)
    multiarray._set_madvise_hugepage(state)
    return bool(state)


def test_advice_turned_off(advice_on, monkeypatch):
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    assert no_hugepage_advice()
    assert not _advice()
    assert not no_hugepage_advice()  # already off: nothing changed


def test_users_choice_stands(advice_on, monkeypatch):
    monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "1")
    assert not no_hugepage_advice()
    assert _advice()


def test_command_line_turns_it_off(advice_on, monkeypatch, capsys):
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    with pytest.raises(SystemExit):
        main(["--help"])
    assert not _advice()
    assert "judgestats" in capsys.readouterr().out
