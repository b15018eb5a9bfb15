"""The certificate checkers (tools/reference/awithlaknannai_certificate.py,
tools/reference/safari_certificate.py) with table leaves beyond its own reach, looked up in verified tables
through this package. Needs the engine binary to build the tables and
write the certificate (target/release/menagerie, or MENAGERIE_ENGINE);
skipped without it unless MENAGERIE_REQUIRE_OPENSPIEL is set (as
.ci/run sets it, having built the engine)."""

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENGINE = pathlib.Path(os.environ.get("MENAGERIE_ENGINE", ROOT / "target/release/menagerie"))
CHECKER = ROOT / "tools/reference/awithlaknannai_certificate.py"
SAFARI_CHECKER = ROOT / "tools/reference/safari_certificate.py"

if not ENGINE.exists():
    if os.environ.get("MENAGERIE_REQUIRE_OPENSPIEL"):
        raise RuntimeError(f"no engine at {ENGINE}: cargo build --release first")
    pytest.skip(f"no engine at {ENGINE}", allow_module_level=True)


def engine(*lines):
    return subprocess.run([str(ENGINE), *lines], capture_output=True, text=True).stdout


def check(path, *extra, checker=CHECKER):
    done = subprocess.run(
        [sys.executable, str(checker), str(path), *extra], capture_output=True, text=True
    )
    return done.returncode == 0, done.stdout + done.stderr


def test_table_leaves_beyond_the_reference_are_checked_in_verified_tables(tmp_path):
    tables = tmp_path / "tables"
    built = engine(f"tables build am men=4 dir={tables} threads=1")
    verified = engine(f"tables verify am dir={tables} threads=1")
    assert "complete to 4 men" in built, built
    assert "tables verify done: 6 slices, 0 mismatches, 0 damaged files" in verified, verified
    # Three white men against two black: the proof's leaves are captures
    # into the 4-men tables.
    certificate = tmp_path / "five.cert"
    out = engine(
        f"setoption name TablePath value {tables}",
        "newgame awithlaknannai-mosona",
        "position fen 7B/4W1B2/4W2W b 0",
        f"solve nodes 300000 certificate {certificate}",
    )
    assert "Value: at most draw" in out, out
    ok, said = check(certificate)
    assert not ok and "a table leaf of 4 men, beyond the reference's 3" in said, said
    ok, said = check(certificate, "--tables", str(tables))
    assert ok, said
    assert said.startswith("claim b cannot-win: holds") and "leaves from the verified tables" in said
    # A table value changed, the verified tables say otherwise.
    text = certificate.read_text()
    damaged = tmp_path / "damaged.cert"
    damaged.write_text(text.replace(" leaf table draw", " leaf table win", 1))
    ok, said = check(damaged, "--tables", str(tables))
    assert not ok and "the verified tables draw" in said, said
    # Tables that do not hold the leaf (3 men only) refuse it.
    small = tmp_path / "small"
    engine(f"tables build am men=3 dir={small} threads=1")
    ok, said = check(certificate, "--tables", str(small))
    assert not ok and "the tables given do not hold" in said, said


def test_safari_dual_table_leaves_beyond_the_reference_are_checked_in_verified_tables(tmp_path):
    tables = tmp_path / "tables"
    built = engine(f"tables build safari-dual men=4 dir={tables} threads=1")
    verified = engine(f"tables verify safari-dual dir={tables} threads=1")
    assert "complete to 4 men" in built, built
    assert "0 mismatches, 0 damaged files" in verified, verified
    # Round's lion and two giraffes against Angular's lion, elephant and
    # giraffe: Round's captures lead into the 4-piece tables.
    certificate = tmp_path / "five.cert"
    out = engine(
        f"setoption name TablePath value {tables}",
        "newgame safari-dual",
        "position fen 1L3/5/3Gg/2l1G/e4 r 11",
        f"solve nodes 300000 certificate {certificate}",
    )
    assert "Value: win" in out, out
    ok, said = check(certificate, checker=SAFARI_CHECKER)
    assert not ok and "a table leaf of 4 men, beyond the reference's 3" in said, said
    ok, said = check(certificate, "--tables", str(tables), checker=SAFARI_CHECKER)
    assert ok, said
    assert said.startswith("claim r wins: holds") and "leaves from the verified tables" in said
    damaged = tmp_path / "damaged.cert"
    damaged.write_text(certificate.read_text().replace(" leaf table loss", " leaf table draw", 1))
    ok, said = check(damaged, "--tables", str(tables), checker=SAFARI_CHECKER)
    assert not ok and "the table says draw, the verified tables loss" in said, said


def _rank(value):
    word, _, n = value.partition(" ")
    return {"win": (2, -int(n or 0)), "draw": (1, 0), "loss": (0, int(n or 0))}[word]


def test_solution_speaks_one_distance_in_the_tables(tmp_path):
    # A capture into the 3-men tables: its value counts to that capture,
    # as the position's own does, so the best move's value is the value.
    import menagerie

    tables = tmp_path / "tables"
    built = engine(f"tables build am men=4 dir={tables} threads=1")
    assert "complete to 4 men" in built, built
    for notation in ["8/WWB2B3/8 w 0", "8/WWB2B3/8 w 40"]:
        state = menagerie.State("awithlaknannai-mosona", notation=notation)
        # The folder is an argument: the default folder knows nothing here.
        assert state.solve(nodes=1000, tables=str(tmp_path / "none")).source != "tables"
        solution = state.solve(tables=str(tables))
        assert solution.source == "tables", notation
        best = max((v for _, v in solution.moves), key=_rank)
        assert best == solution.value, (notation, solution.moves, solution.value)
