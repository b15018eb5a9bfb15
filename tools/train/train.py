#!/usr/bin/env python3
"""Trains a menagerie network from `dataset` files and writes its file.

    python3 tools/train/train.py DATA [DATA ...] --out NET.nnue [--seed S]
        [--hidden H] [--epochs E] [--batch B] [--lr LR] [--lambda L] [--td T]
        [--policy W] [--from NET] [--policy-only]

DATA are files of the engine's `dataset` command (docs/network.md), all
of one game and input set. Beside NET.nnue it writes NET.losses.csv (the
training and validation loss of every epoch), NET.losses.svg (their
plot) and NET.check (the float network's head logits on the first
validation positions, which the engine's quantised network must match).

The network: the inputs that are on sum their columns of the first layer
(plus its bias), each sum clipped to [0, 1], then one linear head per
value. One head: the side to move's expected score (sigmoid), fitted to
a blend of the game's result and the search's score; one head per seat:
each seat's chance to win (softmax over the seats in play), fitted to
the results and (the side to move's head) to the search's score. With
--td T the results' side of the target is, from the second epoch on, the
TD(T) return (Sutton's lambda-return) of the network's own predictions
along each decided game: a result that dice decided is shared with the
positions before it through what the network expected at each step, not
repeated whole at each of them. With --policy W (data of the second
dataset format) the network also gets a policy head over the game's move
keys, fitted to the move each position's search played (cross-entropy over
the moves its record lists, weighted W against the value loss); its file
is then of the second network format and NET.policy.check holds the float
policy's logits of the listed moves. --from NET starts from the weights
of a network file (its hidden width; a policy head it lacks starts from
the seed); --policy-only then trains the policy head alone, so the
value layers stay those of NET to the last bit (a policy added to a
network whose strength is known). After each epoch the state is saved
in NET.ckpt.npz; a run cut at any moment, started again with the same
options and data, goes on from there to the same file as a run never
cut. Validation games are those whose index ends in 0, so no
game is on both sides; the epoch with the least validation loss is the
one written. The same data, seed and options give the same
file.
"""

import argparse
import hashlib
import json
import os
import struct
import sys
import zlib
from pathlib import Path

import numpy as np

MAGIC_DATA = b"MNGDATA1"
MAGIC_DATA_POLICY = b"MNGDATA2"
MAGIC_NET = b"MNGNET01"
MAGIC_NET_POLICY = b"MNGNET02"
MAX_ACTIVE = 64
POLICY_MOVES = 64
NO_INPUT = 0xFFFF
NO_KEY = 0xFFFF
NOT_LISTED = 255
NO_SCORE = -32768
QA, QB = 255, 64
RECORD_FIELDS = [
    ("inputs", "<u2", MAX_ACTIVE),
    ("score", "<i2"),
    ("mask", "u1"),
    ("results", "u1", 4),
    ("game", "<u4"),
    ("ply", "<u2"),
]
RECORD_V1 = np.dtype(RECORD_FIELDS)
RECORD = np.dtype(
    RECORD_FIELDS
    + [("listed", "u1"), ("played", "u1"), ("keys", "<u2", (POLICY_MOVES, 2))]
)
assert RECORD_V1.itemsize == 2 * MAX_ACTIVE + 13
assert RECORD.itemsize == 2 * MAX_ACTIVE + 15 + 4 * POLICY_MOVES


def read_dataset(path):
    """The header's fields and the records of one dataset file."""
    raw = Path(path).read_bytes()
    if raw[:8] not in (MAGIC_DATA, MAGIC_DATA_POLICY):
        sys.exit(f"{path}: not a dataset file (no {MAGIC_DATA_POLICY.decode()} at its start)")
    dtype = RECORD if raw[:8] == MAGIC_DATA_POLICY else RECORD_V1
    (length,) = struct.unpack_from("<I", raw, 8)
    header = raw[12 : 12 + length].decode()
    fields = dict(word.split("=", 1) for word in header.split(" ") if "=" in word)
    # `rules=` runs to the end of the header and may hold spaces.
    fields["rules"] = header.split("rules=", 1)[1] if "rules=" in header else ""
    body = raw[12 + length :]
    if len(body) % dtype.itemsize:
        sys.exit(f"{path}: cut short inside a record")
    records = np.frombuffer(body, dtype=dtype)
    if dtype == RECORD_V1:
        # The first format lists no moves: every record without a target.
        wider = np.zeros(len(records), dtype=RECORD)
        for name in RECORD_V1.names:
            wider[name] = records[name]
        wider["played"] = NOT_LISTED
        wider["keys"] = NO_KEY
        records = wider
        fields.setdefault("moves", "0")
    return fields, records


def targets(records, heads, blend, scale):
    """Each record's target: one head, the mover's expected score blended
    with the score's; several, the winning distribution over the heads."""
    results = records["results"].astype(np.float32)
    if heads == 1:
        outcome = results[:, 0] / 2.0
        by_score, has = score_chance(records, scale)
        lam = np.where(has, blend, 1.0)
        return (lam * outcome + (1.0 - lam) * by_score)[:, None]
    mask = ((records["mask"][:, None] >> np.arange(heads)) & 1).astype(np.float32)
    wins = (results[:, :heads] == 2).astype(np.float32) * mask
    share = np.where(wins.sum(1, keepdims=True) > 0, wins, mask)
    return share / share.sum(1, keepdims=True)


def policy_target(records, moves):
    """Each record's policy target: its listed moves' keys (an unused key
    is `moves`, the policy's zero row; kept as u16 and widened a batch at
    a time), the played move's slot (-1 where none: a roll), and which
    slots are listed."""
    keys = np.minimum(np.where(records["keys"] == NO_KEY, moves, records["keys"]), moves)
    played = records["played"].astype(np.int32)
    played = np.where(played == NOT_LISTED, -1, played)
    listed = np.arange(POLICY_MOVES)[None, :] < records["listed"][:, None]
    return keys.astype(np.uint16), played, listed


def next_in_game(records):
    """Each record's successor in its game (the next ply), or -1 at a
    game's last position."""
    nxt = np.arange(1, len(records) + 1)
    same = np.zeros(len(records), bool)
    same[:-1] = (records["game"][1:] == records["game"][:-1]) & (
        records["ply"][1:] == records["ply"][:-1] + 1
    )
    return np.where(same, nxt, -1)


def td_targets(records, heads, results_target, predicted, td, nxt):
    """The TD(td) returns of every record: at a game's last position its
    result, before it td times the next position's return plus (1 - td)
    times the network's prediction there, both turned to this position's
    heads. Heads follow the side to move, so the turn is read from the
    results: the winner's head here and there (one head: whether the
    mover's result changed). Games without a winner keep their results."""
    res = records["results"]
    if heads == 1:
        decided = res[:, 0] != 1
        pivot = (res[:, 0] == 2).astype(np.int64)
    else:
        decided = (res[:, :heads] == 2).any(1)
        pivot = np.argmax(res[:, :heads] == 2, axis=1)
    # Steps to the game's last position (records are in ply order, and a
    # game is decided at every position or none).
    ends = np.flatnonzero(nxt < 0)
    dist = ends[np.searchsorted(ends, np.arange(len(records)))] - np.arange(len(records))
    dist = np.where(decided, dist, 0)
    out = results_target.copy()
    rows_all = np.arange(heads)
    for d in range(1, int(dist.max(initial=0)) + 1):
        idx = np.flatnonzero(dist == d)
        j = nxt[idx]
        step = td * out[j] + (1.0 - td) * predicted[j]
        if heads == 1:
            flip = pivot[idx] != pivot[j]
            out[idx, 0] = np.where(flip, 1.0 - step[:, 0], step[:, 0])
        else:
            shift = (pivot[j] - pivot[idx]) % heads
            cols = (rows_all[None, :] + shift[:, None]) % heads
            out[idx] = np.take_along_axis(step, cols, axis=1)
    return out


def score_chance(records, scale):
    """The mover's expected score by the search's score, and where there
    is one (not at a roll, not a forced result)."""
    score = records["score"].astype(np.float32)
    has = (records["score"] != NO_SCORE) & (np.abs(score) <= 30000)
    chance = 1.0 / (1.0 + np.exp(-np.clip(score / scale, -50.0, 50.0)))
    return chance.astype(np.float32), has


def fit_scale(records):
    """Search units per logit: the scale at which sigmoid(score / scale)
    best predicts the results (a grid search, as engines fit their WDL
    model)."""
    score = records["score"].astype(np.float64)
    keep = (records["score"] != NO_SCORE) & (np.abs(score) <= 30000)
    if keep.sum() < 100:
        return 400
    score, result = score[keep], records["results"][keep, 0] / 2.0
    best = None
    for scale in np.geomspace(20, 5000, 120):
        p = np.clip(1.0 / (1.0 + np.exp(-score / scale)), 1e-6, 1 - 1e-6)
        loss = -np.mean(result * np.log(p) + (1 - result) * np.log(1 - p))
        if best is None or loss < best[0]:
            best = (loss, scale)
    return int(round(best[1]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", nargs="+")
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--lambda", dest="blend", type=float, default=0.7)
    parser.add_argument("--decay", type=float, default=0.0, help="L2 weight decay of the weights")
    parser.add_argument("--td", type=float, default=0.0, help="TD(td) returns as the results' target from epoch 2 (0: the results)")
    parser.add_argument("--policy", type=float, default=0.0, help="weight of the policy loss (0: no policy head)")
    parser.add_argument("--from", dest="start", help="a network file to start from")
    parser.add_argument("--policy-only", action="store_true", help="with --from and --policy: train the policy head alone")
    parser.add_argument("--check", type=int, default=64)
    args = parser.parse_args()
    # The network and its checkpoints are written beside --out: a folder
    # that is missing is said now, not after the first epoch's work.
    folder = Path(args.out).resolve().parent
    if not folder.is_dir():
        sys.exit(f"--out {args.out}: no folder {folder} to write it in")

    # Imported here so that --help works without JAX.
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", False)
    parts = [read_dataset(p) for p in args.data]
    fields = parts[0][0]
    for f, _ in parts[1:]:
        if (f["game"], f["inputs"], f["rules"]) != (fields["game"], fields["inputs"], fields["rules"]):
            sys.exit("the data files are of different games, input sets or rules")
    records = np.concatenate([r for _, r in parts])
    count, heads = int(fields["count"]), int(fields["heads"])
    moves = int(fields.get("moves", "0")) if args.policy > 0 else 0
    if args.policy > 0 and (moves == 0 or not (records["played"] != NOT_LISTED).any()):
        sys.exit("--policy: the data list no moves (a dataset of the second format, of a game with move keys)")
    # The scale of the search's scores, fitted to the mover's results;
    # networks of one head a seat report logits at a fixed scale.
    score_scale = fit_scale(records)
    scale = score_scale if heads == 1 else 400
    valid = records["game"] % 10 == 0
    train, val = records[~valid], records[valid]
    if len(train) == 0 or len(val) == 0:
        sys.exit("too little data: need games whose index ends in 0 and others")

    def arrays(part):
        idx = part["inputs"].astype(np.int32)
        idx = np.where(idx == NO_INPUT, count, idx)  # the zero row
        mask = ((part["mask"][:, None] >> np.arange(max(heads, 1))) & 1).astype(bool)
        chance, has = score_chance(part, score_scale)
        aux = np.stack([chance, has.astype(np.float32)], axis=1)
        pol = policy_target(part, moves)
        return idx, targets(part, heads, args.blend, score_scale).astype(np.float32), mask, (aux, pol)

    train_x, train_y, train_m, train_a = arrays(train)
    val_x, val_y, val_m, val_a = arrays(val)

    rng = np.random.default_rng(args.seed)
    hidden = args.hidden
    params = {
        "w1": (rng.standard_normal((count + 1, hidden)) * 0.1).astype(np.float32),
        "b1": np.full(hidden, 0.1, np.float32),
        "w2": (rng.standard_normal((heads, hidden)) * (1.0 / np.sqrt(hidden))).astype(np.float32),
        "b2": np.zeros(heads, np.float32),
    }
    if args.start:
        start = read_network(args.start)
        if (start["game"], start["inputs"], start["rules"]) != (fields["game"], fields["inputs"], fields["rules"]):
            sys.exit(f"--from {args.start}: a network of another game, input set or rules than the data")
        hidden = start["hidden"]
        params = {k: start[k] for k in ("w1", "b1", "w2", "b2")}
        params["w1"] = np.vstack([params["w1"], np.zeros((1, hidden), np.float32)])
    if args.policy_only and not (args.start and moves):
        sys.exit("--policy-only needs --from and --policy")
    params["w1"][count] = 0.0
    if moves:
        # Drawn after the value's weights, so a seed gives the value
        # layers it gave before the policy existed.
        params["wp"] = (rng.standard_normal((moves + 1, hidden)) * (1.0 / np.sqrt(hidden))).astype(np.float32)
        params["bp"] = np.zeros(moves + 1, np.float32)
        if args.start and start["moves"] == moves:
            params["wp"][:moves], params["bp"][:moves] = start["wp"], start["bp"]
    params = jax.tree_util.tree_map(jnp.asarray, params)

    def hidden_layer(p, idx):
        w1 = p["w1"].at[count].set(0.0)
        return jnp.clip(p["b1"] + w1[idx].sum(axis=1), 0.0, 1.0)

    def forward(p, idx):
        return hidden_layer(p, idx) @ p["w2"].T + p["b2"]

    def move_logits(p, idx, keys):
        """Each listed move's policy logit: the sum of its keys' (the
        unused key `moves` is a zero row)."""
        per_key = hidden_layer(p, idx) @ p["wp"].at[moves].set(0.0).T + p["bp"].at[moves].set(0.0)
        flat = keys.reshape(keys.shape[0], -1).astype(jnp.int32)
        picked = jnp.take_along_axis(per_key, flat, axis=1).reshape(keys.shape)
        return picked.sum(axis=2)

    def policy_loss(p, idx, pol):
        """Cross-entropy of the played move among the listed ones, over
        the records with one."""
        keys, played, listed = pol
        z = jnp.where(listed, move_logits(p, idx, keys), -1e9)
        logp = z - jax.scipy.special.logsumexp(z, axis=1, keepdims=True)
        has = played >= 0
        chosen = jnp.take_along_axis(logp, jnp.maximum(played, 0)[:, None], axis=1)[:, 0]
        return -jnp.sum(jnp.where(has, chosen, 0.0)) / jnp.maximum(jnp.sum(has), 1)

    def loss_fn(p, idx, y, m, a):
        decay = jnp.sum(p["w1"] ** 2) + jnp.sum(p["w2"] ** 2)
        if moves:
            decay = decay + jnp.sum(p["wp"] ** 2)
        return data_loss(p, idx, y, m, a) + args.decay * decay

    def data_loss(p, idx, y, m, a):
        a, pol = a
        value = value_loss(p, idx, y, m, a)
        if moves:
            value = value + args.policy * policy_loss(p, idx, pol)
        return value

    def value_loss(p, idx, y, m, a):
        z = forward(p, idx)
        if heads == 1:
            z = z[:, 0]
            t = y[:, 0]
            return jnp.mean(jnp.logaddexp(0.0, z) - t * z)
        z = jnp.where(m, z, -1e9)
        logp = z - jax.scipy.special.logsumexp(z, axis=1, keepdims=True)
        results = -jnp.sum(jnp.where(m, y * logp, 0.0), axis=1)
        # The search's score speaks for the mover (head 0): its chance
        # against the rest, as the blend of one-head networks.
        p0 = jnp.clip(jnp.exp(logp[:, 0]), 1e-6, 1 - 1e-6)
        t0, has = a[:, 0], a[:, 1]
        by_score = -(t0 * jnp.log(p0) + (1 - t0) * jnp.log(1 - p0))
        lam = jnp.where(has > 0, args.blend, 1.0)
        return jnp.mean(lam * results + (1 - lam) * by_score)

    limits = {"w1": 127.0, "b1": 127.0, "w2": 500.0, "b2": 1e4, "wp": 500.0, "bp": 1e4}

    @jax.jit
    def step(p, opt, idx, y, m, a):
        loss, grads = jax.value_and_grad(loss_fn)(p, idx, y, m, a)
        t = opt["t"] + 1
        new_p, new_m, new_v = {}, {}, {}
        for k in p:
            new_m[k] = 0.9 * opt["m"][k] + 0.1 * grads[k]
            new_v[k] = 0.999 * opt["v"][k] + 0.001 * grads[k] ** 2
            mhat = new_m[k] / (1 - 0.9**t)
            vhat = new_v[k] / (1 - 0.999**t)
            upd = p[k] - args.lr * mhat / (jnp.sqrt(vhat) + 1e-8)
            # Weights stay where the integer file can hold them.
            new_p[k] = jnp.clip(upd, -limits[k], limits[k])
            if args.policy_only and k not in ("wp", "bp"):
                new_p[k] = p[k]
        return new_p, {"t": t, "m": new_m, "v": new_v}, loss

    eval_loss = jax.jit(data_loss)
    forward_jit = jax.jit(forward)

    def predict(p, x, mask):
        """The network's chances on every position (one head: the
        mover's expected score), as the targets hold them."""
        out = []
        for at in range(0, len(x), 65536):
            z = np.asarray(forward_jit(p, x[at : at + 65536]), dtype=np.float64)
            if heads == 1:
                out.append(1.0 / (1.0 + np.exp(-z)))
            else:
                m = mask[at : at + 65536]
                z = np.where(m, z, -np.inf)
                z = np.exp(z - z.max(1, keepdims=True))
                out.append(z / z.sum(1, keepdims=True))
        return np.concatenate(out).astype(np.float32)
    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    opt = {"t": 0, "m": zeros, "v": zeros}

    def rows(a, part):
        aux, pol = a
        return aux[part], tuple(t[part] for t in pol)

    def mean_loss(x, y, m, a):
        total, n = 0.0, 0
        for at in range(0, len(x), 8192):
            part = slice(at, at + 8192)
            k = len(x[part])
            total += float(eval_loss(params, x[part], y[part], m[part], rows(a, part))) * k
            n += k
        return total / n

    policy_jit = jax.jit(move_logits) if moves else None

    def policy_accuracy(x, a):
        """How often the policy's first choice is the move played."""
        _, (keys, played, listed) = a
        hits, n = 0, 0
        for at in range(0, len(x), 8192):
            part = slice(at, at + 8192)
            z = np.where(listed[part], np.asarray(policy_jit(params, x[part], keys[part])), -np.inf)
            has = played[part] >= 0
            hits += int(((z.argmax(1) == played[part]) & has).sum())
            n += int(has.sum())
        return hits / max(n, 1)

    history = []
    best = None
    batches = max(1, len(train_x) // args.batch)
    train_results_y = train_y
    train_next = next_in_game(train)
    # A run cut at any moment goes on from its last whole epoch, to the
    # same file as a run never cut.
    ckpt = Checkpoint(args, records)
    first_epoch = 1
    resumed = ckpt.load()
    if resumed is not None:
        first_epoch, params, opt, best, history = resumed["epoch"] + 1, resumed["params"], resumed["opt"], resumed["best"], resumed["history"]
        rng.bit_generator.state = resumed["rng"]
        print(f"resumed from {ckpt.path} after epoch {first_epoch - 1}", flush=True)
    for epoch in range(first_epoch, args.epochs + 1):
        if args.td > 0 and epoch > 1:
            train_y = td_targets(train, heads, train_results_y, predict(params, train_x, train_m), args.td, train_next)
        order = rng.permutation(len(train_x))
        run = 0.0
        for b in range(batches):
            pick = order[b * args.batch : (b + 1) * args.batch]
            params, opt, loss = step(
                params, opt, train_x[pick], train_y[pick], train_m[pick], rows(train_a, pick)
            )
            run += float(loss)
        val_loss = mean_loss(val_x, val_y, val_m, val_a)
        history.append((epoch, run / batches, val_loss))
        policy = f" policy top-1 {policy_accuracy(val_x, val_a):.4f}" if moves else ""
        print(f"epoch {epoch}: train {run / batches:.5f} validation {val_loss:.5f}{policy}", flush=True)
        # The network kept is the epoch's with the least validation loss.
        if best is None or val_loss < best[0]:
            best = (val_loss, epoch, params)
        ckpt.save(epoch, params, opt, best, history, rng.bit_generator.state)
    val_loss, best_epoch, params = best
    print(f"kept epoch {best_epoch} (validation {val_loss:.5f})", flush=True)

    out = Path(args.out)
    note = (
        f"tools/train/train.py {' '.join(Path(d).name for d in args.data)} --seed {args.seed} "
        f"--hidden {hidden} --epochs {args.epochs} --batch {args.batch} --lr {args.lr} "
        f"--lambda {args.blend} --decay {args.decay}"
        + (f" --td {args.td}" if args.td > 0 else "")
        + (f" --policy {args.policy}" if moves else "")
        + (f" --from {Path(args.start).name}" if args.start else "")
        + (" --policy-only" if args.policy_only else "")
        + f"; epoch {best_epoch} kept"
    )
    p = {k: np.asarray(v, dtype=np.float64) for k, v in params.items()}
    write_network(out, fields, count, hidden, heads, scale, note, p, moves)
    write_losses(out, history)
    logits = np.asarray(forward(params, val_x[: args.check]))
    with open(str(out) + ".check", "w") as f:
        f.write("# validation record, then each head's float logit\n")
        rows = np.flatnonzero(valid)[: args.check]
        for row, z in zip(rows, logits):
            f.write(f"{row} " + " ".join(f"{v:.6f}" for v in z) + "\n")
    if moves:
        _, (keys, played, listed) = val_a
        chosen = slice(0, args.check)
        z = np.asarray(move_logits(params, val_x[chosen], keys[chosen]))
        with open(str(out) + ".policy.check", "w") as f:
            f.write("# validation record, then each listed move's float policy logit\n")
            for row, logits, n in zip(np.flatnonzero(valid)[: args.check], z, listed[chosen].sum(1)):
                if n:
                    f.write(f"{row} " + " ".join(f"{v:.6f}" for v in logits[:n]) + "\n")
    ckpt.remove()
    print(f"wrote {out} ({out.stat().st_size} bytes), scale {scale}", flush=True)


class Checkpoint:
    """NET.ckpt.npz: the state after the last whole epoch (the weights,
    Adam's moments and step, the best epoch so far, the loss history and
    the shuffling generator), written under a temporary name and renamed,
    so a file on disk is always whole. It is taken up only by a run of
    the same options and data (a digest of both is inside), and removed
    once the network is written."""

    def __init__(self, args, records):
        self.path = str(args.out) + ".ckpt.npz"
        settings = {k: v for k, v in sorted(vars(args).items()) if k not in ("out", "check")}
        digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode())
        digest.update(np.ascontiguousarray(records).view(np.uint8).tobytes())
        self.digest = digest.hexdigest()

    def save(self, epoch, params, opt, best, history, rng_state):
        arrays = {"digest": np.array(self.digest), "epoch": np.array(epoch), "t": np.array(int(opt["t"]))}
        arrays["rng"] = np.array(json.dumps(rng_state))
        arrays["best"] = np.array([best[0], best[1]], dtype=np.float64)
        arrays["history"] = np.array(history, dtype=np.float64).reshape(-1, 3)
        for k in params:
            arrays[f"p.{k}"] = np.asarray(params[k])
            arrays[f"m.{k}"] = np.asarray(opt["m"][k])
            arrays[f"v.{k}"] = np.asarray(opt["v"][k])
            arrays[f"b.{k}"] = np.asarray(best[2][k])
        temporary = self.path + ".tmp"
        with open(temporary, "wb") as f:
            np.savez(f, **arrays)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, self.path)

    def load(self):
        """The saved state, or None when there is none; exits if it is of
        another run or damaged."""
        if not os.path.exists(self.path):
            return None
        try:
            with np.load(self.path, allow_pickle=False) as z:
                if str(z["digest"]) != self.digest:
                    sys.exit(f"{self.path}: a checkpoint of other options or data; remove it to start again")
                keys = [name[2:] for name in z.files if name.startswith("p.")]
                loss, best_epoch = z["best"]
                return {
                    "epoch": int(z["epoch"]),
                    "params": {k: z[f"p.{k}"] for k in keys},
                    # A Python int, as a fresh run's first step has it.
                    "opt": {"t": int(z["t"]), "m": {k: z[f"m.{k}"] for k in keys}, "v": {k: z[f"v.{k}"] for k in keys}},
                    "best": (float(loss), int(best_epoch), {k: z[f"b.{k}"] for k in keys}),
                    "history": [(int(e), float(t), float(v)) for e, t, v in z["history"]],
                    "rng": json.loads(str(z["rng"])),
                }
        except (OSError, ValueError, KeyError) as e:
            sys.exit(f"{self.path}: not a whole checkpoint ({e}); remove it to start again")

    def remove(self):
        if os.path.exists(self.path):
            os.remove(self.path)


def read_network(path):
    """A network file's header and its weights as the trainer's floats
    (the integers over their scales, so writing them again gives the
    same integers)."""
    raw = Path(path).read_bytes()
    if raw[:8] not in (MAGIC_NET, MAGIC_NET_POLICY) or zlib.crc32(raw[:-4]) != struct.unpack("<I", raw[-4:])[0]:
        sys.exit(f"{path}: not a whole network file")
    at, out = 8, {}
    for name in ("game", "rules", "inputs"):
        n = raw[at]
        out[name] = raw[at + 1 : at + 1 + n].decode()
        at += 1 + n
    count, hidden, heads, _scale = struct.unpack_from("<IIIi", raw, at)
    at += 16
    (n,) = struct.unpack_from("<H", raw, at)
    at += 2 + n

    def take(dtype, size, scale):
        nonlocal at
        part = np.frombuffer(raw, dtype=dtype, count=size, offset=at)
        at += part.nbytes
        return (part.astype(np.float64) / scale).astype(np.float32)

    out["hidden"] = hidden
    out["w1"] = take("<i2", count * hidden, QA).reshape(count, hidden)
    out["b1"] = take("<i2", hidden, QA)
    out["w2"] = take("<i2", heads * hidden, QB).reshape(heads, hidden)
    out["b2"] = take("<i4", heads, QA * QB)
    out["moves"] = 0
    if raw[:8] == MAGIC_NET_POLICY:
        (moves,) = struct.unpack_from("<I", raw, at)
        at += 4
        out["moves"] = moves
        out["wp"] = take("<i2", moves * hidden, QB).reshape(moves, hidden)
        out["bp"] = take("<i4", moves, QA * QB)
    return out


def write_network(out, fields, count, hidden, heads, scale, note, p, moves=0):
    """The file of docs/network.md: the header, the weights rounded to
    integers, the policy head if there is one, the checksum."""
    def text(s, width):
        b = s.encode()
        return struct.pack("<B" if width == 1 else "<H", len(b)) + b

    body = bytearray(MAGIC_NET_POLICY if moves else MAGIC_NET)
    body += text(fields["game"], 1) + text(fields["rules"], 1) + text(fields["inputs"], 1)
    body += struct.pack("<IIIi", count, hidden, heads, scale)
    body += text(note, 2)
    w1 = np.rint(p["w1"][:count] * QA).astype("<i2")
    b1 = np.rint(p["b1"] * QA).astype("<i2")
    w2 = np.rint(p["w2"] * QB).astype("<i2")
    b2 = np.rint(p["b2"] * QA * QB).astype("<i4")
    for part in (w1, b1, w2, b2):
        body += part.tobytes()
    if moves:
        body += struct.pack("<I", moves)
        body += np.rint(p["wp"][:moves] * QB).astype("<i2").tobytes()
        body += np.rint(p["bp"][:moves] * QA * QB).astype("<i4").tobytes()
    body += struct.pack("<I", zlib.crc32(bytes(body)))
    # Whole or absent: a run cut while writing leaves no half file.
    temporary = Path(str(out) + ".tmp")
    temporary.write_bytes(bytes(body))
    os.replace(temporary, out)


def write_losses(out, history):
    """The loss curves as CSV and as a small SVG plot."""
    with open(str(out) + ".losses.csv", "w") as f:
        f.write("epoch,train,validation\n")
        for e, t, v in history:
            f.write(f"{e},{t:.6f},{v:.6f}\n")
    width, height, pad = 480, 300, 40
    values = [x for _, t, v in history for x in (t, v)]
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1.0
    last = max(len(history) - 1, 1)

    def point(i, y):
        return (pad + i * (width - 2 * pad) / last, height - pad - (y - lo) * (height - 2 * pad) / span)

    def line(col, colour):
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in (point(i, h[col]) for i, h in enumerate(history)))
        return f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{pts}"/>'

    svg = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" stroke="black"/>',
        f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" stroke="black"/>',
        line(1, "#1f77b4"),
        line(2, "#d62728"),
        f'<text x="{pad}" y="{pad - 10}">loss by epoch: training (blue), validation (red); {lo:.4f} to {hi:.4f}</text>',
        "</svg>",
    ]
    Path(str(out) + ".losses.svg").write_text("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
