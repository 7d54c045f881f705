"""Per-skill BKT parameters fitted by EM (Baum-Welch), vectorized across students and skills."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from tutorgraph.learner_model.bkt import BKTParams

log = logging.getLogger(__name__)

Sequences = Sequence[Sequence[int]]
FloatArray = NDArray[np.float64]
IndexArray = NDArray[np.intp]
Progress = Callable[[int, int], None]

# Probabilities stay in [EPS, 1 - EPS] during EM, so that no message divides by zero.
EPS = 1e-6


@dataclass(frozen=True)
class EMOptions:
    """How EM runs; the defaults are pyBKT 1.4.3's: 5 random restarts, 100 iterations, tol 0.005."""

    restarts: int = 5
    seed: int = 0
    max_iter: int = 100
    tol: float = 0.005  # a skill stops once an iteration gains no more log-likelihood than this
    # pyBKT bounds no parameter during EM; it only draws the starts below 0.4 (learn, guess) and
    # 0.3 (slip). Caps are opt-in here: guess <= 0.3 and slip <= 0.1 (Baker et al. 2008) keep a
    # fitted model from turning degenerate, where a correct answer would lower mastery.
    max_guess: float = 1.0
    max_slip: float = 1.0

    def __post_init__(self) -> None:
        if self.restarts < 1 or self.max_iter < 1:
            raise ValueError("EM needs at least one restart and one iteration")


@dataclass(frozen=True)
class _Params:
    """One value per group (a skill under one restart)."""

    prior: FloatArray
    learn: FloatArray
    forget: FloatArray
    guess: FloatArray
    slip: FloatArray


# Sequences are packed rather than padded: a (students x longest) array with a mask would hold
# the same work plus padding, and ASSISTments has a 3,585-response sequence beside a median of 5.
@dataclass(frozen=True)
class _Packed:
    """Sequences time-major, longest first: step t holds columns 0..n_t-1 from offsets[t]."""

    obs: FloatArray  # 1.0 correct / 0.0 incorrect, packed order
    offsets: list[int]  # len T + 1
    column_group: IndexArray  # group of each packed column
    element_group: IndexArray  # group of each packed response
    src: IndexArray  # packed responses followed by another in their sequence...
    dst: IndexArray  # ...and that next response
    position: IndexArray  # packed position of each response, in input order


def _pack(flat: FloatArray, lengths: IndexArray, groups: IndexArray) -> _Packed:
    """Lay sequences (concatenated in `flat`) out so that each time step is one contiguous slice."""
    n = len(lengths)
    by_length = np.argsort(-lengths, kind="stable")
    rank = np.empty(n, dtype=np.intp)
    rank[by_length] = np.arange(n)
    steps = int(lengths.max())
    at_most = np.cumsum(np.bincount(lengths, minlength=steps + 1))[:steps]
    offsets = np.concatenate([[0], np.cumsum(n - at_most)]).astype(np.intp)
    column = np.repeat(np.arange(n), lengths)
    step = np.arange(len(flat)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    position = offsets[step] + rank[column]
    obs = np.empty_like(flat)
    obs[position] = flat
    element_group = np.empty(len(flat), dtype=np.intp)
    element_group[position] = groups[column]
    has_next = np.flatnonzero(step < lengths[column] - 1)
    return _Packed(
        obs=obs,
        offsets=[int(x) for x in offsets],
        column_group=groups[by_length],
        element_group=element_group,
        src=position[has_next],
        dst=position[has_next + 1],
        position=position,
    )


def _forward(
    packed: _Packed, params: _Params, lik_known: FloatArray, lik_unknown: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """P(not known) before each response (prediction) and after it (filtered), all at once."""
    # The recursion runs on P(not known), never on P(known): after a long run of correct answers
    # P(not known) is far below float64's 1e-16 resolution near 1.0, and computing it as 1 - p
    # would pin mastery at exactly 1.0 so that no later wrong answer could ever lower it.
    offsets, groups = packed.offsets, packed.column_group
    forget = params.forget[groups]
    stay = 1.0 - params.learn[groups] - forget
    before = np.empty(len(packed.obs))
    after = np.empty(len(packed.obs))
    unknown = 1.0 - params.prior[groups]
    for start, stop in itertools.pairwise(offsets):
        n = stop - start
        unknown = unknown[:n]
        before[start:stop] = unknown
        weight = unknown * lik_unknown[start:stop]
        filtered = weight / (weight + (1.0 - unknown) * lik_known[start:stop])
        after[start:stop] = filtered
        unknown = forget[:n] + filtered * stay[:n]
    return before, after


def _backward(
    packed: _Packed, params: _Params, before: FloatArray, after: FloatArray, *, forgetting: bool
) -> FloatArray:
    """Smoothed P(known | whole sequence) by the two-state Rauch-Tung-Striebel recursion."""
    offsets = packed.offsets
    forget = params.forget[packed.column_group]
    smoothed = 1.0 - after  # exact at each sequence's last response
    for t in range(len(offsets) - 3, -1, -1):
        start, stop, end = offsets[t], offsets[t + 1], offsets[t + 2]
        n_next = end - stop
        nxt, unknown = smoothed[stop:end], before[stop:end]
        if forgetting:
            f = forget[:n_next]
            ratio = (1.0 - f) * nxt / (1.0 - unknown) + f * (1.0 - nxt) / unknown
        else:
            ratio = nxt / (1.0 - unknown)
        smoothed[start : start + n_next] *= ratio
    return smoothed


def _ratio(num: FloatArray, den: FloatArray, fallback: FloatArray, cap: float = 1.0) -> FloatArray:
    safe = np.divide(num, den, out=fallback.copy(), where=den > 0)
    return np.clip(safe, EPS, min(cap, 1.0 - EPS))


def _likelihoods(obs: FloatArray, guess: FloatArray, slip: FloatArray) -> tuple[FloatArray, ...]:
    return slip + obs * (1.0 - 2.0 * slip), 1.0 - guess + obs * (2.0 * guess - 1.0)


def _em_step(
    packed: _Packed, params: _Params, n_groups: int, *, forgetting: bool, options: EMOptions
) -> tuple[FloatArray, _Params]:
    """Log-likelihood per group under `params`, and the parameters re-estimated from it."""
    obs, eg, cg = packed.obs, packed.element_group, packed.column_group
    lik_known, lik_unknown = _likelihoods(obs, params.guess[eg], params.slip[eg])
    before, after = _forward(packed, params, lik_known, lik_unknown)  # P(not known)
    evidence = (1.0 - before) * lik_known + before * lik_unknown

    def total(groups: IndexArray, values: FloatArray) -> FloatArray:
        return np.bincount(groups, values, n_groups).astype(np.float64, copy=False)

    loglik = total(eg, np.log(evidence))
    smoothed = _backward(packed, params, before, after, forgetting=forgetting)

    responses = np.bincount(eg, minlength=n_groups).astype(np.float64)
    known = total(eg, smoothed)
    columns = np.bincount(cg, minlength=n_groups).astype(np.float64)
    first = smoothed[: len(cg)]  # step 0 holds every column, in column order
    src, dst = packed.src, packed.dst
    pg = eg[src]
    learned = smoothed[dst] * after[src] * params.learn[pg] / (1.0 - before[dst])
    forget = params.forget
    if forgetting:
        forgot = (1.0 - smoothed[dst]) * (1.0 - after[src]) * params.forget[pg] / before[dst]
        forget = _ratio(total(pg, forgot), total(pg, smoothed[src]), params.forget)
    updated = _Params(
        prior=_ratio(total(cg, first), columns, params.prior),
        learn=_ratio(total(pg, learned), total(pg, 1.0 - smoothed[src]), params.learn),
        forget=forget,
        guess=_ratio(
            total(eg, (1.0 - smoothed) * obs), responses - known, params.guess, options.max_guess
        ),
        slip=_ratio(total(eg, smoothed * (1.0 - obs)), known, params.slip, options.max_slip),
    )
    return loglik, updated


def _initial(skills: int, *, forgetting: bool, options: EMOptions) -> _Params:
    """Random starts drawn as pyBKT draws them; every skill gets the same `restarts` starts."""
    rng = np.random.default_rng(options.seed)
    r = options.restarts
    prior, learn = rng.uniform(0.0, 1.0, r), rng.uniform(0.0, 0.4, r)
    guess, slip = rng.uniform(0.0, 0.4, r), rng.uniform(0.0, 0.3, r)
    forget = rng.uniform(0.0, 1.0, r) if forgetting else np.zeros(r)

    def start(values: FloatArray, cap: float = 1.0) -> FloatArray:
        return np.tile(np.clip(values, EPS, min(cap, 1.0 - EPS)), skills)

    return _Params(
        prior=start(prior),
        learn=start(learn),
        forget=start(forget) if forgetting else np.zeros(skills * r),
        guess=start(guess, options.max_guess),
        slip=start(slip, options.max_slip),
    )


def _em(
    flat: FloatArray,
    lengths: IndexArray,
    groups: IndexArray,
    params: _Params,
    *,
    forgetting: bool,
    options: EMOptions,
    progress: Progress | None,
) -> tuple[_Params, FloatArray]:
    """Run EM for every group at once; a group stops on its own when its likelihood settles."""
    n_groups = len(params.prior)
    loglik = np.full(n_groups, -np.inf)
    active = np.ones(n_groups, dtype=bool)
    packed, packed_columns = _pack(flat, lengths, groups), len(lengths)
    for iteration in range(options.max_iter):
        current, updated = _em_step(
            packed, params, n_groups, forgetting=forgetting, options=options
        )
        settled = active & (np.abs(current - loglik) <= options.tol)
        loglik[active] = current[active]
        active &= ~settled
        if progress is not None:
            progress(iteration + 1, int(active.sum()))
        if not active.any():
            break
        params = _Params(
            **{
                name: np.where(active, getattr(updated, name), getattr(params, name))
                for name in ("prior", "learn", "forget", "guess", "slip")
            }
        )
        keep = active[groups]
        if keep.sum() < packed_columns // 2:  # drop settled groups' sequences from the work
            flat, lengths, groups = flat[np.repeat(keep, lengths)], lengths[keep], groups[keep]
            packed, packed_columns = _pack(flat, lengths, groups), len(lengths)
    return params, loglik


def fit_skills(
    sequences_by_skill: Mapping[str, Sequences],
    *,
    forgetting: bool = False,
    options: EMOptions = EMOptions(),
    progress: Progress | None = None,
) -> dict[str, BKTParams]:
    """Fit every skill's parameters in one vectorized EM (skills and restarts side by side)."""
    skills = list(sequences_by_skill)
    r = options.restarts
    flats, lengths, groups = [], [], []
    for index, skill in enumerate(skills):
        sequences = [s for s in sequences_by_skill[skill] if len(s) > 0]
        if not sequences:
            raise ValueError(f"skill {skill!r} has no responses to fit")
        flat = np.fromiter(itertools.chain.from_iterable(sequences), dtype=np.float64)
        if not np.isin(flat, (0.0, 1.0)).all():
            raise ValueError(f"skill {skill!r}: responses must be 0 or 1")
        sizes = np.array([len(s) for s in sequences], dtype=np.intp)
        for restart in range(r):
            flats.append(flat)
            lengths.append(sizes)
            groups.append(np.full(len(sizes), index * r + restart, dtype=np.intp))
    if not skills:
        return {}
    params, loglik = _em(
        np.concatenate(flats),
        np.concatenate(lengths),
        np.concatenate(groups),
        _initial(len(skills), forgetting=forgetting, options=options),
        forgetting=forgetting,
        options=options,
        progress=progress,
    )
    best = np.argmax(loglik.reshape(len(skills), r), axis=1) + np.arange(len(skills)) * r
    log.info("fitted BKT for %d skills (%d restarts each)", len(skills), r)
    return {
        skill: BKTParams(
            p_init=float(params.prior[g]),
            p_learn=float(params.learn[g]),
            p_guess=float(params.guess[g]),
            p_slip=float(params.slip[g]),
            p_forget=float(params.forget[g]),
        )
        for skill, g in zip(skills, best, strict=True)
    }


def fit_skill(
    sequences: Sequences, *, forgetting: bool = False, options: EMOptions = EMOptions()
) -> BKTParams:
    """Fit one skill's parameters from its learners' answer sequences (0/1, in order)."""
    return fit_skills({"skill": sequences}, forgetting=forgetting, options=options)["skill"]


def group_sequences(
    rows: Iterable[Mapping[str, str | int]],
    *,
    skill_key: str = "skill_name",
    user_key: str = "user_id",
    correct_key: str = "correct",
) -> dict[str, list[list[int]]]:
    """Answer sequences per skill: one per (skill, user), in the rows' order."""
    by_skill: dict[str, dict[str, list[int]]] = {}
    for row in rows:
        correct = int(row[correct_key])
        if correct not in (0, 1):
            raise ValueError(f"{correct_key} must be 0 or 1, got {row[correct_key]!r}")
        users = by_skill.setdefault(str(row[skill_key]), {})
        users.setdefault(str(row[user_key]), []).append(correct)
    return {skill: list(users.values()) for skill, users in by_skill.items()}


def fit_all(
    rows: Iterable[Mapping[str, str | int]],
    *,
    forgetting: bool = False,
    options: EMOptions = EMOptions(),
    progress: Progress | None = None,
) -> dict[str, BKTParams]:
    """Fit every skill in rows with user_id, skill_name and correct columns (ordered per user)."""
    return fit_skills(
        group_sequences(rows), forgetting=forgetting, options=options, progress=progress
    )


def predict_sequences(params: BKTParams, sequences: Sequences) -> list[FloatArray]:
    """P(correct) before each response, updating on the true answer after it; the first is prior."""
    sizes = np.array([len(s) for s in sequences], dtype=np.intp)
    if sizes.sum() == 0:
        return [np.empty(0) for _ in sequences]
    flat = np.fromiter(itertools.chain.from_iterable(sequences), dtype=np.float64)
    nonempty = sizes > 0
    packed = _pack(flat, sizes[nonempty], np.zeros(int(nonempty.sum()), dtype=np.intp))
    one = _Params(
        *(
            np.array([v])
            for v in (params.p_init, params.p_learn, params.p_forget, params.p_guess, params.p_slip)
        )
    )
    lik_known, lik_unknown = _likelihoods(packed.obs, one.guess[[0]], one.slip[[0]])
    unknown, _ = _forward(packed, one, lik_known, lik_unknown)
    correct = (1.0 - unknown) * (1.0 - params.p_slip) + unknown * params.p_guess
    return np.split(correct[packed.position], np.cumsum(sizes)[:-1])
