#!/usr/bin/env python3
"""A proof search split by the moves of its first plies, and the merge of
the parts' certificates into one certificate of the whole.

    proof_split.py plan DIR --engine E --depth D --game "GAME [WORDS]" --position "POSITION"
    proof_split.py task DIR I [--nodes N] [--memory MIB] [--tables PATH]
    proof_split.py run DIR [task options] [--jobs J]   every task here, J at once
    proof_split.py merge DIR [--tables PATH]

`plan` asks the engine for the tree of every line of D moves from the
position (`position` command words, e.g. "fen 8/2B1W1W2/8 b 0" or
"startpos moves f1g2i2"); each line's end, and each position where the
game ended sooner, is a task, written with the tree to DIR/plan.json.
`task` runs the engine's `solve` on task I with a checkpoint
(DIR/task-I.ckpt, so a task cut at any moment resumes; its node budget
counts the nodes of earlier runs, so a task left unsettled goes on with a
larger --nodes) and a certificate (DIR/task-I.cert, when it settles
something); its output goes to DIR/task-I.out. tools/slurm/proof.sh
runs the tasks as a Slurm job array. `merge` has each task's
certificate checked by the game's independent checker (with --tables
for table leaves of more men than the checker values itself; a part it
refuses stops the merge), then reads the certificates and settles the tree's positions by their claims (a claim
holds where the side it favours has a move to a position where it holds,
or the other side has only such moves); it writes DIR/proof.cert, a
certificate of the position (the tree's nodes, then each task's proof
under it, renumbered), and prints the value, from the side to move's
view, as `solve` words it. The merged file is checked like any other
(tools/reference/awithlaknannai_certificate.py or safari_certificate.py), so a mistake of the
merge cannot pass for a proof.
"""
import argparse
import concurrent.futures
import json
import os
import stat
import subprocess
import sys


def with_moves(position, line):
    if not line:
        return position
    joiner = " " if " moves " in f" {position} " else " moves "
    return position + joiner + " ".join(line)


def ask(engine, lines):
    out = subprocess.run(
        [engine, "--strict", *lines], capture_output=True, text=True, check=True
    ).stdout
    return out.splitlines()


def plan(args):
    nodes = [{"line": [], "side": None, "moves": None, "task": None}]
    frontier, tasks = [0], 0
    for depth in range(args.depth + 1):
        lines = [f"newgame {args.game}"]
        for index in frontier:
            lines += [f"position {with_moves(args.position, nodes[index]['line'])}", "d", "legal"]
        answers = iter(ask(args.engine, lines))
        for index in frontier:
            for answer in answers:
                if answer.startswith("info string error"):
                    sys.exit(f"plan: {answer}")
                if answer.startswith("Side: "):
                    nodes[index]["side"] = answer.split()[1]
                if answer == "legal" or answer.startswith("legal "):
                    nodes[index]["moves"] = answer.split()[1:]
                    break
        next_frontier = []
        for index in frontier:
            node = nodes[index]
            if depth == args.depth or not node["moves"]:
                tasks += 1
                node["task"] = tasks
                node["children"] = []
                continue
            node["children"] = []
            for move in node["moves"]:
                nodes.append({"line": node["line"] + [move], "side": None, "moves": None, "task": None})
                node["children"].append(len(nodes) - 1)
                next_frontier.append(len(nodes) - 1)
        frontier = next_frontier
    os.makedirs(args.dir, exist_ok=True)
    with open(os.path.join(args.dir, "plan.json"), "w") as f:
        json.dump({"game": args.game, "position": args.position, "nodes": nodes}, f)
    print(tasks)


def load(directory):
    with open(os.path.join(directory, "plan.json")) as f:
        return json.load(f)


def task(args):
    sys.exit(run_task(args, args.index))


def run_task(args, index):
    """Runs task `index`; its status (0 once the engine gave a value)."""
    split = load(args.dir)
    node = next(n for n in split["nodes"] if n["task"] == index)
    base = os.path.join(args.dir, f"task-{index}")
    solve = f"solve nodes {args.nodes}"
    if args.memory:
        solve += f" memory {args.memory}"
    solve += f" checkpoint {base}.ckpt certificate {base}.cert"
    lines = []
    if args.tables:
        lines.append(f"setoption name TablePath value {args.tables}")
    lines += [
        f"newgame {split['game']}",
        f"position {with_moves(split['position'], node['line'])}",
        solve,
    ]
    # A proof left unsettled (an error line, no certificate: the engine
    # exits with 1) is an answer; the task failed only if the engine
    # gave no value.
    with open(base + ".out", "w") as out:
        status = subprocess.run([args.engine, *lines], stdout=out).returncode
    with open(base + ".out") as out:
        answered = any(line.startswith("Value: ") for line in out)
    return 0 if answered else status or 1


def run(args):
    split = load(args.dir)
    indices = sorted(n["task"] for n in split["nodes"] if n["task"] is not None)
    # Each task is an engine process of its own; threads only wait on them.
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        statuses = list(pool.map(lambda i: run_task(args, i), indices))
    failed = [(i, s) for i, s in zip(indices, statuses) if s]
    if failed:
        sys.exit("run: " + ", ".join(f"task {i} failed with status {s}" for i, s in failed))


# The independent checker of each game's certificates: a part is merged
# only once its checker has accepted it.
CHECKERS = {
    game: os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference", script)
    for game, script in [
        ("awithlaknannai-mosona", "awithlaknannai_certificate.py"),
        ("safari-dual", "safari_certificate.py"),
    ]
}


def checked(path, tables):
    """Runs the game's checker on the part at `path` (with the verified
    tables of `tables`, if given); exits the merge if it is refused."""
    game = None
    if not stat.S_ISREG(os.stat(path).st_mode):
        sys.exit(f"merge: {path}: not a regular file")
    try:
        with open(path, "rb") as f:
            head = f.read(4096).decode("utf-8", "replace").splitlines()
        game = next((line.split(" ", 1)[1] for line in head[:3] if line.startswith("game ")), None)
    except OSError as e:
        sys.exit(f"merge: {path}: {e.strerror}")
    checker = CHECKERS.get(game)
    if checker is None:
        sys.exit(f"merge: {path}: no independent checker for game {game}; nothing is merged unchecked")
    extra = ["--tables", tables] if tables else []
    done = subprocess.run([sys.executable, checker, path, *extra], capture_output=True, text=True)
    if done.returncode != 0:
        said = (done.stdout + done.stderr).strip().splitlines()
        sys.exit(f"merge: {path}: refused by the checker: {said[-1] if said else done.returncode}")


def read_certificate(path):
    """The header's start and moves, and each claim's node lines."""
    with open(path) as f:
        lines = f.read().splitlines()
    if not lines or lines[0] != "menagerie-certificate 1" or lines[-1] != "end":
        raise ValueError(f"{path}: not a whole certificate")
    header = dict(line.split(" ", 1) for line in lines[1:5])
    claims, current = {}, None
    for line in lines[5:-1]:
        if line.startswith("claim "):
            current = claims.setdefault(line, [])
        else:
            current.append(line.split())
    return header, claims


def favoured(claim, other_of):
    """The seat a claim favours: the winner, or the defender."""
    seat, kind = claim.split()[1:]
    return seat if kind == "wins" else other_of[seat]


def merge(args):
    split = load(args.dir)
    nodes = split["nodes"]
    parts, header, root_moves = {}, None, None
    for node in nodes:
        if node["task"] is None:
            continue
        path = os.path.join(args.dir, f"task-{node['task']}.cert")
        if os.path.lexists(path):
            # Checked before it is trusted: a claim the checker refuses
            # would pass into the merged proof unseen.
            checked(path, args.tables)
            part_header, claims = read_certificate(path)
            parts[node["task"]] = claims
            # Every part starts where the others do, its line after the
            # root's moves.
            moves = part_header["moves"].split()
            cut = len(moves) - len(node["line"])
            if moves[cut:] != node["line"] or (root_moves is not None and moves[:cut] != root_moves):
                sys.exit(f"merge: {path} is not the proof of task {node['task']}'s position")
            header, root_moves = header or part_header, moves[:cut]
    # The two seats' letters: the sides seen in the tree and the claims'.
    letters = {n["side"] for n in nodes if n["side"]}
    letters |= {c.split()[1] for claims in parts.values() for c in claims}
    if len(letters) != 2:
        letters |= {"?"}  # one side seen and nothing proved: nothing to merge
    a, b = sorted(letters)[:2]
    other_of = {a: b, b: a}
    all_claims = [f"claim {seat} {kind}" for kind in ("wins", "cannot-win") for seat in (a, b)]
    # Which claims hold at each node, leaves first.
    holds = {}

    def settle(index):
        node = nodes[index]
        if node["task"] is not None:
            holds[index] = set(parts.get(node["task"], {}))
            return
        for child in node["children"]:
            settle(child)
        holds[index] = set()
        for claim in all_claims:
            got = [claim in holds[c] for c in node["children"]]
            if any(got) if node["side"] == favoured(claim, other_of) else all(got):
                holds[index].add(claim)

    settle(0)
    open_tasks = [n["task"] for n in nodes if n["task"] is not None and n["task"] not in parts]
    if open_tasks:
        print(f"merge: {len(open_tasks)} tasks settled nothing: {' '.join(map(str, open_tasks))}")
    root_side = nodes[0]["side"]
    other = other_of.get(root_side, "?")
    proved = holds[0]
    if f"claim {root_side} wins" in proved:
        value, proved = "win", {f"claim {root_side} wins"}
    elif f"claim {other} wins" in proved:
        value, proved = "loss", {f"claim {other} wins"}
    else:
        proved = {c for c in proved if c.endswith("cannot-win")}
        mine, theirs = f"claim {root_side} cannot-win", f"claim {other} cannot-win"
        value = {2: "draw", 0: "unknown"}.get(len(proved)) or (
            "at least draw" if theirs in proved else "at most draw"
        )
    out_path = os.path.join(args.dir, "proof.cert")
    if proved:
        claims = [c for c in all_claims if c in proved]
        write_merged(out_path, header, root_moves, nodes, holds, parts, claims, other_of)
    print(f"Value: {value}")


def write_merged(path, header, root_moves, nodes, holds, parts, claims, other_of):
    out = [
        "menagerie-certificate 1",
        f"game {header['game']}",
        f"ruleset {header['ruleset']}",
        f"start {header['start']}",
        "moves " + " ".join(root_moves),
    ]
    for claim in claims:
        out.append(claim)
        ids = {}
        next_id = [0]

        def new_id():
            next_id[0] += 1
            return next_id[0] - 1

        def emit(index, own):
            node = nodes[index]
            if node["task"] is not None:
                # The task's proof, its ids moved past those given so far.
                lines = parts[node["task"]][claim]
                shift = {}

                def mapped(i):
                    if i == "0":
                        return own
                    if i not in shift:
                        shift[i] = new_id()
                    return shift[i]

                for words in lines:
                    record = [str(mapped(words[0]))] + words[1:]
                    if words[1] in ("one", "all"):
                        for k in range(3, len(words), 2):
                            record[k] = str(mapped(words[k]))
                    out.append(" ".join(record))
                return
            chosen = [
                (move, child)
                for move, child in zip(node["moves"], node["children"])
                if claim in holds[child]
            ]
            if node["side"] == favoured(claim, other_of):
                chosen = chosen[:1]
                kind = "one"
            else:
                kind = "all"
            children = [(move, child, new_id()) for move, child in chosen]
            out.append(f"{own} {kind} " + " ".join(f"{m} {i}" for m, _, i in children))
            for _, child, child_id in children:
                emit(child, child_id)

        emit(0, new_id())
    out.append("end")
    partial = path + ".partial"
    with open(partial, "w") as f:
        f.write("\n".join(out) + "\n")
    os.replace(partial, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("plan")
    p.add_argument("dir")
    p.add_argument("--engine", required=True)
    p.add_argument("--depth", type=int, default=1)
    p.add_argument("--game", required=True)
    p.add_argument("--position", required=True)
    for name in ("task", "run"):
        p = sub.add_parser(name)
        p.add_argument("dir")
        if name == "task":
            p.add_argument("index", type=int)
        p.add_argument("--engine", required=True)
        p.add_argument("--nodes", type=int, default=1_000_000)
        p.add_argument("--memory", type=int)
        p.add_argument("--tables")
        if name == "run":
            p.add_argument("--jobs", type=int, default=1, help="tasks at once (engine processes)")
    p = sub.add_parser("merge")
    p.add_argument("dir")
    p.add_argument("--tables", help="verified tables for the checker's table leaves of more than 3 men")
    args = parser.parse_args()
    {"plan": plan, "task": task, "run": run, "merge": merge}[args.command](args)


if __name__ == "__main__":
    main()
