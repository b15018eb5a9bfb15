#!/usr/bin/env python3
"""Generations of self-play: each network's own games train the next,
which is kept only if it beats the best so far through the referee.

    tools/train/generations.py run DIR --game GAME [--rules "players=3"]
        [--also-rules "players=4" ...]
        [--generations K] [--start NET] [--games N] [--nodes N]
        [--openings P] [--seed S] [--window W] [--train "ARGS"] [--from-best]
        [--gate-games N] [--gate-nodes N] [--gate-sprt "elo0=0 elo1=10 ..."]
        [--time-gate MS] [--referee-args "ARGS"] [--concurrency C]
        [--slurm-shards N [--slurm-args "ARGS"]]
    tools/train/generations.py curve DIR [--games N] [--nodes N]
    tools/train/generations.py greedy DIR [--games N] [--nodes N] [--openings P]
        [--seed S] [--target SHARE ...]

`run` makes generations 1 to K in DIR. Generation g:
  1. self-play: `menagerie selfplay GAME games=N nodes=N network=BEST`
     into DIR/gG.bin, every seat searching with the best network so far
     (generation 0 is --start, by default the game's built-in network,
     copied into DIR/g0/ when the run begins);
  2. `menagerie dataset` of it into DIR/gG.data;
  3. train.py on the data of the last W generations (the window, as
     AlphaZero trains on its recent games) into DIR/gG.nnue, with the
     trainer's options --train (a policy head with --policy); with
     --from-best it starts from the best network's weights (`--from`),
     so each generation goes on training the last instead of starting
     again;
  4. the gate: the referee plays gG against the best at --gate-nodes
     nodes a move (fixed work: the machine's load decides nothing) with
     an SPRT (--gate-sprt, by default elo0=0 elo1=10 alpha=0.05
     beta=0.05) for at most --gate-games games; with --time-gate MS a
     second match at MS milliseconds a move must also accept "no loss"
     (elo0=-10 elo1=0). gG becomes the best only if every gate accepts
     H1; an SPRT still undecided at its last game keeps the best.

With --also-rules R (repeatable) every generation serves more than one
ruleset with one network (Kilkenny Cats' 3- and 4-seat network): each
ruleset plays its own --games self-play games (DIR/gG.bin for --rules,
DIR/gG-rI.bin for the I-th --also-rules), the trainer takes all of them,
and the network must pass every gate in every ruleset, in turn, to
become the best (the first that fails ends the generation's gates).

One driver at a time works in a folder: a second `run` or `curve` on
it is refused while the first lives (DIR/generations.lock).

With --slurm-shards N each generation's self-play runs on a Slurm
cluster as a job array of N shards (tools/slurm/selfplay.sh, given
--slurm-args such as "--partition P --time-limit S"), joined into the
same gG.bin a local run writes; the rest runs where the driver runs.

Every step is resumable: self-play and the referee resume their own
files, the trainer its checkpoint, and DIR/generations.json records the
settings and each finished step, so a run cut at any moment and started
again with the same line goes on where it was and ends as a run never
cut (a line of other settings is refused). The seeds of generation g
are S + g, so the whole run is reproducible.

`curve` plays each generation's network against generation 0 (the
start) and against the built-in network (main's), --games games at
--nodes nodes, and writes DIR/curve.csv and DIR/curve.svg: Elo per
generation with its 95% interval (DIR/curve-rI.* for each --also-rules).

`greedy` plays each generation, 0 (the start) to the last, alone in one
seat against greedy players (`Skill 1`) in the others (`--seating
lone`), --games games at --nodes nodes (by default 600 at 20,000, from 2
random plies, seed 221: the same sets for every generation), and writes
DIR/greedy.csv and DIR/greedy.svg: the share of wins per generation with
its 95% interval, the par and, with --target, the share aimed at (one
for every ruleset, or one each in the order --rules, --also-rules;
DIR/greedy-rI.* for each --also-rules; with two seats the share is the
score against greedy, par 0.5).
"""
import argparse
import fcntl
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILTIN = {
    "safari-dual": "safari-dual.nnue",
    "awithlaknannai-mosona": "awithlaknannai-mosona.nnue",
}


def builtin_network(game, rules):
    """The network the engine builds in for the game and ruleset."""
    if game == "kilkenny-cats":
        players = next((w.split("=")[1] for w in rules if w.startswith("players=")), "2")
        name = {"2": "kilkenny-cats.nnue", "3": "kilkenny-cats-3.nnue"}.get(players, "kilkenny-cats-3-4.nnue")
        return ROOT / "src/nnue/nets" / name
    if game not in BUILTIN:
        sys.exit(f"{game}: no built-in network to start from (give --start)")
    return ROOT / "src/nnue/nets" / BUILTIN[game]


def in_folder(folder, path):
    """A network's path as the state keeps it: relative to the run's
    folder when it lies inside, so that the run resumes from any working
    directory and its state does not name where the folder is."""
    try:
        return str(Path(path).resolve().relative_to(Path(folder).resolve()))
    except ValueError:
        return str(Path(path).resolve())


def resolved(folder, text):
    """The path of a network the state names: inside the folder if it is
    there (states written before paths were kept relative named them as
    given, from the directory the run was started in)."""
    inside = Path(folder) / text
    return inside if not Path(text).is_absolute() and inside.exists() else Path(text)


def hold_folder(folder):
    """Takes DIR/generations.lock for the life of this process, so that
    two drivers never write one folder's files at once (the second is
    refused); the kernel lets go when the process ends, however it ends."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    lock = open(Path(folder) / "generations.lock", "a")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        sys.exit(f"{folder}: in use by another run of generations.py (generations.lock is held); "
                 "wait for it to end or use another folder")
    return lock


class Run:
    """DIR/generations.json: the settings, the best network, and each
    generation's finished steps, rewritten whole after every step."""

    def __init__(self, folder, settings):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / "generations.json"
        if self.path.exists():
            self.state = json.loads(self.path.read_text())
            # A run of before --from-best existed trained from scratch.
            if dict({"from_best": False, "also_rules": []}, **self.state["settings"]) != settings:
                sys.exit(f"{self.path}: a run of other settings; use another folder")
        else:
            start = self.keep_start(Path(settings["start"]))
            self.state = {"settings": settings, "start_copy": start, "best": start, "best_generation": 0,
                          "generations": []}
            self.save()

    def keep_start(self, start):
        """Copies the start network into DIR/g0/ under its own name (the
        name the trainer writes into a network's note): the run then never
        depends on a file outside it, such as the built-in network that a
        later commit replaces."""
        if not start.is_file():
            sys.exit(f"--start {start}: no such network file")
        folder = self.folder / "g0"
        folder.mkdir(exist_ok=True)
        kept = folder / start.name
        temporary = kept.with_suffix(".tmp")
        shutil.copyfile(start, temporary)
        os.replace(temporary, kept)
        return in_folder(self.folder, kept)

    def save(self):
        temporary = self.path.with_suffix(".json.tmp")
        temporary.write_text(json.dumps(self.state, indent=2) + "\n")
        os.replace(temporary, self.path)

    def generation(self, g):
        while len(self.state["generations"]) < g:
            self.state["generations"].append({"generation": len(self.state["generations"]) + 1, "steps": {}})
        return self.state["generations"][g - 1]


def run_command(args, log):
    """Runs a command, its output appended to `log`; exits if it fails."""
    with open(log, "a") as out:
        out.write("$ " + " ".join(shlex.quote(str(a)) for a in args) + "\n")
        out.flush()
        done = subprocess.run([str(a) for a in args], stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        sys.exit(f"{args[0]} failed with status {done.returncode}: see {log}")


def rulesets(s):
    """Each ruleset the run serves, with the suffix its files and steps
    carry: "" for --rules, "-rI" for the I-th --also-rules."""
    return [("", s["rules"])] + [(f"-r{i}", rules) for i, rules in enumerate(s.get("also_rules", []), 1)]


def network_player(s, network, name):
    """The referee's words for the engine playing with `network`."""
    return ["--engine", s["engine"], f"name={name}", f"option.EvalFile={network}"]


def duel(s, first, second):
    """Network `first` against network `second` (the best so far, or a
    network the curve measures against)."""
    return network_player(s, first, Path(first).stem) + network_player(s, second, f"{Path(second).stem}-best")


def match(s, folder, name, players, limit, games, sprt, seed, rules, extra=()):
    """A referee match of `players` (the referee's words for the two
    engines) under `rules`, resumable from its record; its JSON results."""
    record, results = folder / f"{name}.txt", folder / f"{name}.json"
    args = [s["referee"], *players,
            "--game", s["game"], *rules, *limit, "--games", games, "--seed", seed,
            "--random-openings", s["openings"], "--concurrency", s["concurrency"], "--quiet",
            "--record", record, "--json", results, *extra, *shlex.split(s["referee_args"])]
    if sprt:
        args += ["--sprt", *sprt.split()]
    if record.exists() and record.stat().st_size > 0:
        args.append("--resume")
    run_command(args, folder / f"{name}.log")
    return json.loads(results.read_text())


def verdict(results):
    sprt = results.get("sprt") or {}
    return {"games": results["games"], "score": results["score"], "elo": results.get("elo"),
            "elo_margin": results.get("elo_margin"), "llr": sprt.get("llr"), "verdict": sprt.get("verdict")}


def selfplay_on_slurm(s, folder, g, words, games, suffix):
    """The generation's self-play as a Slurm job array of
    --slurm-shards tasks (tools/slurm/selfplay.sh, which resumes its
    shards), joined into the file one local run writes. Each shard count
    has its own folder: shards of another count slice other games."""
    shards = s["slurm_shards"]
    work = folder / f"g{g}{suffix}-slurm{shards}"
    run_command([ROOT / "tools/slurm/selfplay.sh", "--dir", work, "--shards", shards, "--engine", s["engine"],
                 *shlex.split(s["slurm_args"]), "--wait", "--", *words], folder / f"g{g}.log")
    os.replace(work / "data.bin", games)


def one_generation(s, run, g):
    folder, record = run.folder, run.generation(g)
    steps, seed = record["steps"], s["seed"] + g
    best = resolved(folder, run.state["best"])
    for suffix, rules in rulesets(s):
        games, data = folder / f"g{g}{suffix}.bin", folder / f"g{g}{suffix}.data"
        if "selfplay" + suffix not in steps:
            words = [s["game"], *rules, f"games={s['games']}", f"nodes={s['nodes']}", f"openings={s['openings']}",
                     f"seed={seed}", f"network={Path(best).resolve()}"]
            if s["slurm_shards"]:
                selfplay_on_slurm(s, folder, g, words, games, suffix)
            else:
                run_command([s["engine"], "selfplay", *words, f"out={games}"], folder / f"g{g}.log")
            steps["selfplay" + suffix] = {"network": in_folder(folder, best)}
            run.save()
        if "dataset" + suffix not in steps:
            run_command([s["engine"], "dataset", games, f"out={data}"], folder / f"g{g}.log")
            steps["dataset" + suffix] = True
            run.save()
    network = folder / f"g{g}.nnue"
    if "train" not in steps:
        window = [folder / f"g{k}{suffix}.data" for k in range(max(1, g - s["window"] + 1), g + 1)
                  for suffix, _ in rulesets(s)]
        start = ["--from", best] if s["from_best"] else []
        run_command([s["python"], ROOT / "tools/train/train.py", *window, "--out", network, "--seed", seed,
                     *shlex.split(s["train"]), *start], folder / f"g{g}.log")
        steps["train"] = {"data": [p.name for p in window]}
        run.save()
    passed = all(gates_passed(s, run, g, network, best, suffix, rules) for suffix, rules in rulesets(s))
    if "promoted" not in record:
        record["promoted"] = passed
        if passed:
            run.state["best"], run.state["best_generation"] = in_folder(folder, network), g
        run.save()
    kept = "becomes the best" if record["promoted"] else f"is not kept (best: generation {run.state['best_generation']})"
    for suffix, rules in rulesets(s):
        gate = steps.get("gate" + suffix)
        if gate is None:
            continue
        decided = gate["verdict"] if gate["verdict"] in ("H0 accepted", "H1 accepted") else "no SPRT decision"
        where = f" ({' '.join(rules)})" if s["also_rules"] else ""
        print(f"generation {g}{where}: {decided} after {gate['games']} games "
              f"(score {gate['score']:.3f}, Elo {gate['elo'] or 0:.1f} +/- {gate['elo_margin'] or 0:.1f})", flush=True)
    print(f"generation {g}: {kept}", flush=True)


def gates_passed(s, run, g, network, best, suffix, rules):
    """Plays the generation's gates under one ruleset (each recorded as a
    step, so a resumed run does not play it again); whether all accept H1."""
    folder, steps, seed = run.folder, run.generation(g)["steps"], s["seed"] + g
    if "gate" + suffix not in steps:
        results = match(s, folder, f"g{g}-gate{suffix}", duel(s, network, best), ["--nodes", s["gate_nodes"]],
                        s["gate_games"], s["gate_sprt"], seed, rules)
        steps["gate" + suffix] = verdict(results)
        run.save()
    if steps["gate" + suffix]["verdict"] != "H1 accepted":
        return False
    if not s["time_gate"]:
        return True
    if "time_gate" + suffix not in steps:
        results = match(s, folder, f"g{g}-time{suffix}", duel(s, network, best), ["--movetime", s["time_gate"]],
                        s["gate_games"], "elo0=-10 elo1=0 alpha=0.05 beta=0.05", seed, rules)
        steps["time_gate" + suffix] = verdict(results)
        run.save()
    return steps["time_gate" + suffix]["verdict"] == "H1 accepted"


def settings_of(a):
    start = str(Path(a.start).resolve()) if a.start else str(builtin_network(a.game, a.rules.split()))
    return {
        "game": a.game, "rules": a.rules.split(), "also_rules": [r.split() for r in a.also_rules], "start": start,
        "games": a.games, "nodes": a.nodes,
        "openings": str(a.openings), "seed": a.seed, "window": a.window, "train": a.train,
        "from_best": a.from_best,
        "gate_games": str(a.gate_games), "gate_nodes": str(a.gate_nodes), "gate_sprt": a.gate_sprt,
        "time_gate": str(a.time_gate) if a.time_gate else "", "referee_args": a.referee_args,
    }


def tools_of(a):
    """The programs and the games at once: how the run is made here,
    not what it makes (a run may go on with another clone's builds)."""
    return {"concurrency": str(a.concurrency), "engine": str(Path(a.engine).resolve()),
            "slurm_shards": getattr(a, "slurm_shards", 0), "slurm_args": getattr(a, "slurm_args", ""),
            "referee": str(Path(a.referee).resolve()), "python": a.python}


def finished_run(a, **overrides):
    """A run's state, its settings with this call's tools (and
    `overrides`), its folder and its start, for the commands that
    measure a run."""
    run = json.loads((Path(a.dir) / "generations.json").read_text())
    s = dict(run["settings"], **tools_of(a), **overrides)
    folder = Path(a.dir)
    # The run's own copy of its start (runs made before the copy was kept
    # name the file they started from).
    return run, s, folder, resolved(folder, run.get("start_copy", s["start"]))


def curve(a):
    run, s, folder, start = finished_run(a)
    for suffix, rules in rulesets(s):
        # Main's network for this ruleset (a game may build in one per
        # seat count).
        builtin = str(builtin_network(s["game"], rules))
        start_is_main = Path(start).read_bytes() == Path(builtin).read_bytes()
        rows = curve_rows(a, s, run, start, builtin if not start_is_main else None, suffix, rules)
        write_curve(folder, suffix, rows, " ".join([s["game"], *rules]))


def curve_rows(a, s, run, start, builtin, suffix, rules):
    """Each generation against the start and against main (`builtin`;
    None where the start is main's network) under one ruleset."""
    folder, rows = Path(a.dir), []
    for g in range(1, len(run["generations"]) + 1):
        network = folder / f"g{g}.nnue"
        if not network.exists():
            continue
        row = {"generation": g, "promoted": run["generations"][g - 1].get("promoted")}
        for label, other in (("start", start), ("main", builtin)):
            if other is None:
                row["main"] = row["start"]
                continue
            res = match(s, folder, f"g{g}-vs-{label}{suffix}", duel(s, network, other), ["--nodes", str(a.nodes)],
                        str(a.games), "", str(s["seed"] + 1000 + g), rules)
            # No Elo where one side won every game: the score says it.
            row[label] = (res.get("elo"), res.get("elo_margin"), res["games"], res["score"])
        rows.append(row)
        where = f" ({' '.join(rules)})" if suffix else ""
        print(f"generation {g}{where}: against the start {shown(row['start'])}, against main {shown(row['main'])}",
              flush=True)
    return rows


def write_curve(folder, suffix, rows, title):
    with open(folder / f"curve{suffix}.csv", "w") as f:
        f.write("generation,promoted,elo_vs_start,margin_vs_start,score_vs_start,elo_vs_main,margin_vs_main,score_vs_main,games\n")
        for r in rows:
            cells = [f"{v:.1f}" if v is not None else "" for v in (r["start"][0], r["start"][1])]
            cells += [f"{r['start'][3]:.4f}"]
            cells += [f"{v:.1f}" if v is not None else "" for v in (r["main"][0], r["main"][1])]
            cells += [f"{r['main'][3]:.4f}"]
            f.write(f"{r['generation']},{int(bool(r['promoted']))}," + ",".join(cells) + f",{r['start'][2]}\n")
    (folder / f"curve{suffix}.svg").write_text(svg(rows, title))


def shown(result):
    elo, margin, games, score = result
    if elo is None:
        return f"score {score:.3f} of {games} games (no Elo)"
    return f"{elo:+.1f} +/- {margin:.1f} Elo ({games} games)"


def svg(rows, title):
    """Elo per generation against the start (blue) and main (red), with
    95% intervals as bars; generation 0 is the start, at 0."""
    width, height, pad = 520, 300, 44
    # Generations whose Elo is unbounded (every game one way) are left out.
    points = [(0, (0.0, 0.0), (0.0, 0.0))] + [
        (r["generation"], r["start"][:2], r["main"][:2]) for r in rows if r["start"][0] is not None and r["main"][0] is not None
    ]
    top = max([abs(v[0]) + v[1] for _, a, b in points for v in (a, b)] + [10.0])
    last = max([1] + [r["generation"] for r in rows])

    def x(g):
        return pad + (width - 2 * pad) * g / last

    def y(elo):
        return height / 2 - (height / 2 - pad) * elo / top

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
             f'<text x="{pad}" y="16">{title}: Elo by generation, 95% intervals</text>',
             f'<text x="{pad}" y="30">blue: against generation 0; red: against main (the built-in network)</text>',
             f'<line x1="{pad}" y1="{y(0):.1f}" x2="{width - pad}" y2="{y(0):.1f}" stroke="#999"/>',
             f'<text x="4" y="{y(top) + 4:.1f}">{top:+.0f}</text><text x="4" y="{y(-top) + 4:.1f}">{-top:+.0f}</text>']
    for index, colour, shift in ((1, "#1f5fbf", -3), (2, "#c0392b", 3)):
        line = " ".join(f"{x(p[0]) + shift:.1f},{y(p[index][0]):.1f}" for p in points)
        parts.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="1.5"/>')
        for p in points:
            elo, margin = p[index]
            parts.append(f'<line x1="{x(p[0]) + shift:.1f}" y1="{y(elo - margin):.1f}" x2="{x(p[0]) + shift:.1f}" '
                         f'y2="{y(elo + margin):.1f}" stroke="{colour}"/>')
    for g in range(0, last + 1):
        parts.append(f'<text x="{x(g) - 3:.1f}" y="{height - pad + 16}">{g}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def greedy(a):
    """Each generation, from 0 (the start) to the last, alone in one seat
    against greedy players (the engine at `Skill 1`) in every other seat:
    the share of games it wins, its par and 95% interval, per ruleset.
    Every generation plays the same sets (one seed), side by side."""
    run, s, folder, start = finished_run(a, openings=str(a.openings))
    networks = [(0, start, True)] + [(record["generation"], folder / f"g{record['generation']}.nnue",
                                      record.get("promoted")) for record in run["generations"]]
    greedy_player = ["--engine", s["engine"], "name=greedy", "option.Skill=1"]
    # One target for every ruleset, or one each in their order.
    sets = rulesets(s)
    targets = a.target if len(a.target) > 1 else (a.target or [None]) * len(sets)
    if len(targets) != len(sets):
        sys.exit(f"--target: give one share, or one for each of the run's {len(sets)} rulesets")
    for (suffix, rules), target in zip(sets, targets):
        rows = []
        for g, network, promoted in networks:
            if not Path(network).exists():
                continue
            results = match(s, folder, f"g{g}-vs-greedy{suffix}", network_player(s, network, f"g{g}") + greedy_player,
                            ["--nodes", str(a.nodes)], str(a.games), "", str(a.seed), rules, ["--seating", "lone"])
            share, margin, par = alone_share(results)
            rows.append({"generation": g, "promoted": bool(promoted), "share": share, "margin": margin, "par": par,
                         "games": results["games"]})
            where = f" ({' '.join(rules)})" if suffix else ""
            print(f"generation {g}{where}: share {share:.3f} +/- {margin:.3f} alone against greedy players "
                  f"(par {par:.3f}, {results['games']} games)", flush=True)
        if not rows:
            sys.exit(f"{folder}: none of the run's networks is there (g0/ and gG.nnue)")
        with open(folder / f"greedy{suffix}.csv", "w") as f:
            f.write("generation,promoted,share,margin,par,games\n")
            for r in rows:
                f.write(f"{r['generation']},{int(r['promoted'])},{r['share']:.4f},{r['margin']:.4f},"
                        f"{r['par']:.4f},{r['games']}\n")
        title = " ".join([s["game"], *rules]) + f", {a.nodes} nodes a move"
        (folder / f"greedy{suffix}.svg").write_text(share_svg(rows, title, target))


def alone_share(results):
    """The share of wins of the engine alone, its 95% interval and its
    par, from the referee's results. With two seats there is no lone
    block (one against one is what a set is): the share is the score, its
    interval the normal one of the games' scores."""
    lone = results.get("lone")
    if lone is not None:
        return lone["share"], lone["share_margin"], lone["par"]
    games, wins, draws, losses = results["games"], results["wins"], results["draws"], results["losses"]
    mean = (wins + draws / 2) / games
    variance = (wins * (1 - mean) ** 2 + draws * (0.5 - mean) ** 2 + losses * mean ** 2) / games
    return mean, 1.96 * (variance / games) ** 0.5, 0.5


def share_svg(rows, title, target):
    """The share of wins per generation with 95% intervals as bars, the
    par (grey) and, if given, the target (green), both dashed."""
    width, height, pad = 520, 300, 44
    marks = [r["par"] for r in rows] + ([target] if target is not None else [])
    low = max(0.0, min([r["share"] - r["margin"] for r in rows] + marks) - 0.02)
    high = min(1.0, max([r["share"] + r["margin"] for r in rows] + marks) + 0.02)
    last = max([1] + [r["generation"] for r in rows])

    def x(g):
        return pad + (width - 2 * pad) * g / last

    def y(share):
        return height - pad - (height - 2 * pad) * (share - low) / (high - low)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
             f'<text x="{pad}" y="16">{title}: share of wins alone against greedy players</text>',
             f'<text x="{pad}" y="30">95% intervals; hollow: a generation not kept</text>',
             f'<text x="4" y="{y(high) + 4:.1f}">{high:.2f}</text><text x="4" y="{y(low) + 4:.1f}">{low:.2f}</text>']
    for value, colour, label in [(rows[0]["par"] if rows else None, "#999", "par"), (target, "#2e8b57", "target")]:
        if value is None:
            continue
        parts.append(f'<line x1="{pad}" y1="{y(value):.1f}" x2="{width - pad}" y2="{y(value):.1f}" stroke="{colour}" '
                     f'stroke-dasharray="4 3"/><text x="{pad + 4}" y="{y(value) - 3:.1f}" fill="{colour}">'
                     f'{label} {value:.2f}</text>')
    line = " ".join(f"{x(r['generation']):.1f},{y(r['share']):.1f}" for r in rows)
    parts.append(f'<polyline points="{line}" fill="none" stroke="#1f5fbf" stroke-width="1.5"/>')
    for r in rows:
        # A generation that was not kept is drawn hollow.
        fill = "#1f5fbf" if r["promoted"] else "white"
        parts.append(f'<line x1="{x(r["generation"]):.1f}" y1="{y(max(low, r["share"] - r["margin"])):.1f}" '
                     f'x2="{x(r["generation"]):.1f}" y2="{y(min(high, r["share"] + r["margin"])):.1f}" stroke="#1f5fbf"/>'
                     f'<circle cx="{x(r["generation"]):.1f}" cy="{y(r["share"]):.1f}" r="3" fill="{fill}" stroke="#1f5fbf"/>')
    for g in range(0, last + 1):
        parts.append(f'<text x="{x(g) - 3:.1f}" y="{height - pad + 16}">{g}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--game", required=True)
    r.add_argument("--rules", default="")
    r.add_argument("--also-rules", action="append", default=[], metavar="RULES",
                   help="another ruleset the network serves (repeatable): its own self-play and gates")
    r.add_argument("--generations", type=int, default=3)
    r.add_argument("--start")
    r.add_argument("--games", type=int, default=2000)
    r.add_argument("--nodes", type=int, default=2000)
    r.add_argument("--openings", type=int, default=6)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--window", type=int, default=2)
    r.add_argument("--train", default="--epochs 8 --policy 1")
    r.add_argument("--from-best", action="store_true")
    r.add_argument("--gate-games", type=int, default=2000)
    r.add_argument("--gate-nodes", type=int, default=2000)
    r.add_argument("--gate-sprt", default="elo0=0 elo1=10 alpha=0.05 beta=0.05")
    r.add_argument("--time-gate", type=int, default=0)
    r.add_argument("--referee-args", default="")
    r.add_argument("--slurm-shards", type=int, default=0)
    r.add_argument("--slurm-args", default="")
    c = sub.add_parser("curve")
    c.add_argument("dir")
    c.add_argument("--games", type=int, default=400)
    c.add_argument("--nodes", type=int, default=2000)
    gr = sub.add_parser("greedy")
    gr.add_argument("dir")
    gr.add_argument("--games", type=int, default=600)
    gr.add_argument("--nodes", type=int, default=20000)
    gr.add_argument("--openings", type=int, default=2)
    gr.add_argument("--seed", type=int, default=221)
    gr.add_argument("--target", type=float, action="append", default=[],
                    help="the share aimed at: once for every ruleset, or once for each in order")
    for p in (r, c, gr):
        p.add_argument("--concurrency", type=int, default=2)
        p.add_argument("--engine", default=str(ROOT / "target/release/menagerie"))
        p.add_argument("--referee", default=str(ROOT / "target/release/referee"))
        p.add_argument("--python", default=str(ROOT / "target/train-venv/bin/python"))
    a = parser.parse_args()
    held = hold_folder(a.dir)  # noqa: F841 (kept open until the process ends)
    if a.command == "curve":
        curve(a)
        return
    if a.command == "greedy":
        greedy(a)
        return
    settings = settings_of(a)
    run = Run(a.dir, settings)
    for g in range(1, a.generations + 1):
        one_generation(dict(settings, **tools_of(a)), run, g)
    print(f"best: generation {run.state['best_generation']} ({run.state['best']})")


if __name__ == "__main__":
    main()
