"""Figures of a millrace trace store, shared by the notebooks in this folder and `millrace report`.

The trace store (data/schema.sql) is read with sqlite3, read-only; every figure is a matplotlib
Figure built by one function here, so a notebook is a few calls and `millrace report` (which runs
this file with python3) draws exactly the same pictures. Times in the store are integer
microseconds; figures show them in the unit that suits the span (s, min or h), named on the axis.

As a program: python3 millrace_plots.py --store S -o DIR [--model M] [--run R] renders every
figure the store has data for to DIR/*.png and writes DIR/index.html.
"""

import argparse
import html
import json
import os
import sqlite3
import sys

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import EngFormatter

MICROS_PER_SECOND = 1e6
RECORDED_SOURCES = ("imported", "recorded", "real")


# --- reading the store ------------------------------------------------------------------------


def store_path(default=None):
    """The store path: $MILLRACE_STORE, else `default`; raises when neither names a file."""
    path = os.environ.get("MILLRACE_STORE", default)
    if not path:
        raise RuntimeError("set MILLRACE_STORE to the trace store (SQLite file) to read")
    if not os.path.isfile(path):
        raise RuntimeError(f"{path}: no such trace store (MILLRACE_STORE)")
    return path


def figures_dir(default="figures"):
    """Where the notebooks write their PNGs: $MILLRACE_FIGURES, else `default`; created."""
    path = os.environ.get("MILLRACE_FIGURES", default)
    os.makedirs(path, exist_ok=True)
    return path


def connect(path):
    """A read-only connection to the trace store at `path`."""
    if not os.path.isfile(path):
        raise RuntimeError(f"{path}: no such trace store")
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def has_table(conn, name):
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone()
    return row is not None


def runs(conn):
    """Every run of the store, with its parameters JSON parsed into `params`."""
    frame = pd.read_sql_query(
        "SELECT id, name, source, units, partitioner, policy, parameters, started_us, ended_us "
        "FROM runs ORDER BY id", conn)
    frame["params"] = [json.loads(text) if text else {} for text in frame["parameters"]]
    return frame


def find_run(conn, key=None, sources=RECORDED_SOURCES):
    """The run named or numbered `key`; without a key, the first run whose source is in `sources`."""
    table = runs(conn)
    if key is not None:
        key = str(key)
        match = table[table["id"].astype(str) == key] if key.isdigit() else table[table["name"] == key]
        if match.empty:
            raise RuntimeError(f"no run '{key}' in the store (give a run id or name)")
        if len(match) > 1:  # a store made before run names were unique
            ids = [str(i) for i in match["id"]]
            raise RuntimeError(f"run name '{key}' matches runs {', '.join(ids[:-1])} and {ids[-1]}; "
                               "name the run by its id")
    else:
        match = table[table["source"].isin(sources)]
        if match.empty:
            raise RuntimeError(f"no run with source {' or '.join(sources)} in the store")
    return match.iloc[0]


def attempts(conn, run_id):
    """Every attempt of a run joined with its item: range, worker, start/end and duration (us)."""
    frame = pd.read_sql_query(
        "SELECT a.item_id, a.number, a.worker, a.start_us, a.end_us, a.outcome, a.work_time_us, "
        "       i.position, i.range_first, i.range_count, i.predicted_us "
        "FROM attempts a JOIN items i ON i.run_id = a.run_id AND i.id = a.item_id "
        "WHERE a.run_id = ? ORDER BY a.start_us, i.position, a.number", conn, params=(int(run_id),))
    frame["duration_us"] = frame["end_us"] - frame["start_us"]
    return frame


def succeeded(frame):
    """The succeeded attempts of a range run, in sequence order."""
    done = frame[(frame["outcome"] == "succeeded") & frame["range_first"].notna()]
    return done.sort_values("range_first").reset_index(drop=True)


def load_model(path):
    """The cost model JSON written by `millrace fit`, with its bins as a DataFrame."""
    with open(path) as f:
        model = json.load(f)
    if model.get("format") is None or "bins" not in model:
        raise RuntimeError(f"{path}: not a millrace cost model (no format or bins)")
    bins = pd.DataFrame(model["bins"])
    if bins.empty:
        raise RuntimeError(f"{path}: the cost model has no bins")
    model["bin_frame"] = bins.sort_values("first").reset_index(drop=True)
    return model


def model_runs(model):
    """The run names a model was fitted from (its source reads '<store> runs <a>,<b>')."""
    source = model.get("source", "")
    marker = " runs "
    if marker not in source:
        return []
    return [name for name in source.rsplit(marker, 1)[1].split(",") if name]


def predict(model, first, count):
    """Predicted durations (us) of the ranges [first, first + count) (arrays): s(first) + integral of w.

    Mirrors data::CostModel::cost: piecewise-constant s and w over the bins, the nearest bin's
    coefficients outside them.
    """
    bins = model["bin_frame"]
    edges = bins["first"].to_numpy(dtype=float)
    density = bins["micros_per_unit"].to_numpy()
    prefix = np.concatenate([[0.0], np.cumsum(bins["count"].to_numpy() * density)[:-1]])

    def index(x):
        return np.clip(np.searchsorted(edges, x, side="right") - 1, 0, len(edges) - 1)

    def cumulative(x):
        i = index(x)
        return prefix[i] + (x - edges[i]) * density[i]

    first = np.asarray(first, dtype=float)
    end = first + np.asarray(count, dtype=float)
    return bins["startup_micros"].to_numpy()[index(first)] + cumulative(end) - cumulative(first)


def noise_quantile(model, first, p):
    """The model's noise factor (observed / predicted) at probability p for ranges starting at `first`
    (an array): 1 without noise.

    Mirrors data::DurationNoise::quantile: the segment with the last start at or before `first`
    (the first segment before all of them), its quantile knots interpolated linearly.
    """
    first = np.asarray(first, dtype=float)
    segments = (model.get("noise") or {}).get("segments") or []
    if not segments:
        return np.ones_like(first)
    starts = np.array([segment["first"] for segment in segments], dtype=float)
    knots = [np.asarray(segment["quantiles"], dtype=float) for segment in segments]
    factors = np.array([np.interp(p * (len(k) - 1), np.arange(len(k)), k) for k in knots])
    index = np.clip(np.searchsorted(starts, first, side="right") - 1, 0, len(segments) - 1)
    return factors[index]


# --- units ------------------------------------------------------------------------------------


def time_unit(span_us):
    """(divisor, name) to show a span of `span_us` microseconds in s, min or h."""
    seconds = span_us / MICROS_PER_SECOND
    if seconds >= 3 * 3600:
        return 3600 * MICROS_PER_SECOND, "h"
    if seconds >= 3 * 60:
        return 60 * MICROS_PER_SECOND, "min"
    return MICROS_PER_SECOND, "s"


def write_whole(path, write, mode="wb"):
    """Writes `path` whole or not at all, as data/whole_file.h does: `write(file)` fills a
    temporary file beside it (.NAME.millrace-PID-N), which is flushed to disk and renamed over
    `path`; a kill or a full disk leaves the old file as it was. The temporary files of writers of
    the same path that were killed before their rename are removed first."""
    directory, name = os.path.split(os.path.abspath(path))
    prefix = f".{name}.millrace-"
    remove_dead_writers_files(directory, prefix)
    encoding = None if "b" in mode else "utf-8"
    attempt = 0
    while True:
        staged = os.path.join(directory, f"{prefix}{os.getpid()}-{attempt}")
        try:
            fd = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # less the umask
            break
        except FileExistsError:
            attempt += 1
    try:
        with os.fdopen(fd, mode, encoding=encoding) as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(staged, path)
    except BaseException:
        os.unlink(staged)
        raise


def remove_dead_writers_files(directory, prefix):
    """Removes PREFIX + PID-N files in `directory` whose process PID is gone."""
    for entry in os.listdir(directory):
        pid, dash, attempt = entry[len(prefix):].partition("-")
        if not entry.startswith(prefix) or not (pid.isdigit() and dash and attempt.isdigit()):
            continue
        if int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            os.unlink(os.path.join(directory, entry))
        except (PermissionError, OverflowError):
            pass


def save(fig, directory, name):
    """Writes `fig` to directory/name.png (whole or not at all) and returns the path."""
    path = os.path.join(directory, f"{name}.png")
    write_whole(path, lambda f: fig.savefig(f, format="png", dpi=110, bbox_inches="tight"))
    return path


def singular(units):
    """'ledgers' -> 'ledger': the name of one unit, for axis labels."""
    return units[:-1] if units.endswith("s") and len(units) > 1 else units


def sequence_axis(axis, units, label):
    """Labels an axis along the sequence, ticks in engineering notation (54.3M, not 5.43e7)."""
    axis.set_label_text(label.format(unit=singular(units), units=units))
    axis.set_major_formatter(EngFormatter(sep=""))


# --- 1. a recorded run ------------------------------------------------------------------------


def range_durations(run, frame):
    """Per-range duration along the sequence (and the recorded work time, where there is one)."""
    done = succeeded(frame)
    if done.empty:
        raise RuntimeError(f"run '{run['name']}' has no succeeded range attempts")
    div, unit = time_unit(done["duration_us"].max())
    fig, ax = plt.subplots(figsize=(10, 4))
    ax.scatter(done["range_first"], done["duration_us"] / div, s=6, label="wall time of the range")
    if done["work_time_us"].notna().any():
        ax.scatter(done["range_first"], done["work_time_us"] / div, s=6, alpha=0.6,
                   label="recorded work time (e.g. transaction apply)")
    sequence_axis(ax.xaxis, run["units"], "first {unit} of the range")
    ax.set_ylabel(f"duration ({unit})")
    ax.set_title(f"run '{run['name']}' ({run['source']}): duration of each range along the sequence")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left")
    return fig


def gantt_axes(ax, frame, div, unit, origin_us):
    """Draws one bar per attempt on its worker's row, coloured by the item's place in the plan
    (failed and cancelled attempts hatched); returns the colour scale for a colour bar."""
    workers = frame.groupby("worker")["start_us"].min().sort_values().index.tolist()
    row = {w: i for i, w in enumerate(workers)}
    place = frame["range_first"].where(frame["range_first"].notna(), frame["position"]).astype(float)
    scale = plt.cm.ScalarMappable(norm=plt.Normalize(place.min(), max(place.max(), place.min() + 1)),
                                  cmap="viridis")
    for worker, bars in frame.assign(place=place).groupby("worker"):
        spans = [((s - origin_us) / div, (e - s) / div) for s, e in zip(bars["start_us"], bars["end_us"])]
        ax.broken_barh(spans, (row[worker] - 0.4, 0.8), facecolors=scale.to_rgba(bars["place"]),
                       edgecolor="white", linewidth=0.3 if len(frame) > 200 else 1)
        failed = bars[bars["outcome"] != "succeeded"]
        if not failed.empty:
            ax.broken_barh([((s - origin_us) / div, (e - s) / div) for s, e in zip(failed["start_us"], failed["end_us"])],
                           (row[worker] - 0.4, 0.8), facecolors="none", edgecolor="tab:red", hatch="///",
                           label="failed or cancelled attempt")
    if (frame["outcome"] != "succeeded").any():
        handles, labels = ax.get_legend_handles_labels()
        ax.legend(handles[:1], labels[:1], loc="lower right", fontsize=8)
    ax.set_ylim(len(workers) - 0.5, -0.5)
    ax.set_xlabel(f"time since the run's first start ({unit})")
    ax.set_ylabel(f"worker ({len(workers)} in all)")
    if len(workers) <= 24:
        ax.set_yticks(range(len(workers)))
        ax.set_yticklabels(workers, fontsize=7)
    else:
        ax.set_yticks([])
    ax.grid(axis="x", alpha=0.3)
    return scale


def colour_bar(fig, axes, scale, frame, units):
    """The colour scale of gantt_axes beside `axes` (one axes or a list sharing it)."""
    ranges = frame["range_first"].notna().any()
    bar = fig.colorbar(scale, ax=axes, pad=0.01)
    bar.set_label(f"first {singular(units)} of the range" if ranges else "item's place in the plan")
    if ranges:
        bar.formatter = EngFormatter(sep="")


def gantt(run, frame):
    """The Gantt chart of the run's workers: every attempt as a bar on its worker's row."""
    if frame.empty:
        raise RuntimeError(f"run '{run['name']}' has no attempts")
    origin = frame["start_us"].min()
    div, unit = time_unit(frame["end_us"].max() - origin)
    fig, ax = plt.subplots(figsize=(11, 6))
    colour_bar(fig, ax, gantt_axes(ax, frame, div, unit, origin), frame, run["units"])
    ax.set_title(f"run '{run['name']}' ({run['source']}): attempts per worker")
    return fig


def busy_workers(frame):
    """Step series (time_us, attempts running) over the run, from its attempts."""
    events = pd.concat([pd.DataFrame({"t": frame["start_us"], "d": 1}),
                        pd.DataFrame({"t": frame["end_us"], "d": -1})])
    events = events.groupby("t")["d"].sum().sort_index()
    return events.index.to_numpy(), events.cumsum().to_numpy()


def straggler_tail(run, frame):
    """Attempts running over time, with the moments half and 90% of the workers had finished.

    The tail is the run time left after 90% of the workers went idle (as `millrace show` says).
    """
    if frame.empty:
        raise RuntimeError(f"run '{run['name']}' has no attempts")
    origin = frame["start_us"].min()
    makespan = frame["end_us"].max() - origin
    div, unit = time_unit(makespan)
    times, running = busy_workers(frame)
    last_end = frame.groupby("worker")["end_us"].max().sort_values().to_numpy() - origin
    half = last_end[(len(last_end) - 1) // 2]
    most = last_end[min(len(last_end) - 1, int(0.9 * len(last_end)))]
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 4), gridspec_kw={"width_ratios": [2, 1]})
    ax.step((times - origin) / div, running, where="post", color="tab:blue")
    ax.axvline(half / div, color="tab:orange", ls="--", label=f"50% of workers idle ({half / div:.2f} {unit})")
    ax.axvline(most / div, color="tab:red", ls="--", label=f"90% of workers idle ({most / div:.2f} {unit})")
    ax.axvspan(most / div, makespan / div, color="tab:red", alpha=0.12,
               label=f"tail: {(makespan - most) / div:.2f} {unit} of {makespan / div:.2f} {unit}")
    ax.set_xlabel(f"time since the run's first start ({unit})")
    ax.set_ylabel("attempts running")
    ax.set_title("the straggler tail: attempts running over time")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    longest = frame["duration_us"].sort_values(ascending=False).to_numpy()
    ddiv, dunit = time_unit(longest[0])
    ax2.plot(range(1, len(longest) + 1), longest / ddiv, marker=".", ls="none", ms=3)
    ax2.set_xscale("log")
    ax2.set_xlabel("rank of the attempt (longest first)")
    ax2.set_ylabel(f"attempt duration ({dunit})")
    ax2.set_title("attempt durations, longest first")
    ax2.grid(alpha=0.3, which="both")
    fig.suptitle(f"run '{run['name']}' ({run['source']})")
    fig.tight_layout()
    return fig


# --- 2. the cost model ------------------------------------------------------------------------


def model_coefficients(model):
    """The fitted start-up cost s(first) and per-unit work density w(u) along the sequence."""
    bins = model["bin_frame"]
    edges = list(bins["first"]) + [int(bins["first"].iloc[-1] + bins["count"].iloc[-1])]
    units = model.get("units", "units")
    startup_div, startup_unit = time_unit(bins["startup_micros"].max() or 1)
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
    ax.stairs(bins["startup_micros"] / startup_div, edges, color="tab:green", lw=2)
    ax.set_ylabel(f"start-up s(first) ({startup_unit})")
    ax.set_title(f"fitted cost model ({len(bins)} bins): start-up cost and work density")
    ax.grid(alpha=0.3)
    ax2.stairs(bins["micros_per_unit"] / 1e3, edges, color="tab:purple", lw=2)
    ax2.set_ylabel(f"density w(u) (ms per {singular(units)})")
    sequence_axis(ax2.xaxis, units, "{units} along the sequence")
    ax2.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def model_observations(model, recorded):
    """Succeeded range attempts of the model's runs with the model's prediction and residual (us)."""
    done = succeeded(recorded).copy()
    done["predicted"] = predict(model, done["range_first"], done["range_count"])
    done["residual"] = done["duration_us"] - done["predicted"]
    return done


def model_fit(model, recorded):
    """Recorded range durations against the model's predictions along the sequence, and residuals."""
    done = model_observations(model, recorded)
    if done.empty:
        raise RuntimeError("no recorded ranges to compare the model with")
    div, unit = time_unit(done["duration_us"].max())
    units = model.get("units", "units")
    ss_res = float((done["residual"] ** 2).sum())
    ss_tot = float(((done["duration_us"] - done["duration_us"].mean()) ** 2).sum())
    r2 = 1 - ss_res / ss_tot if ss_tot > 0 else float("nan")
    fig, axes = plt.subplots(2, 2, figsize=(12, 7), gridspec_kw={"width_ratios": [2, 1]})
    ax = axes[0][0]
    along = done.sort_values("range_first")
    if (model.get("noise") or {}).get("segments"):
        ax.fill_between(along["range_first"], along["predicted"] * noise_quantile(model, along["range_first"], 0.1) / div,
                        along["predicted"] * noise_quantile(model, along["range_first"], 0.9) / div,
                        color="tab:gray", alpha=0.45, lw=0, label="p10\u2013p90 of the model's noise (out of fold)")
    ax.scatter(done["range_first"], done["duration_us"] / div, s=2, label="recorded", zorder=3)
    ax.plot(along["range_first"], along["predicted"] / div, color="tab:orange", lw=0.6, label="predicted by the model",
            zorder=2)
    ax.set_ylabel(f"range duration ({unit})")
    ax.xaxis.set_major_formatter(EngFormatter(sep=""))
    ax.set_title(f"recorded vs predicted along the sequence (R\u00b2 = {r2:.3f}, {len(done)} ranges)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    ax = axes[1][0]
    if (model.get("noise") or {}).get("segments"):
        ax.fill_between(along["range_first"],
                        along["predicted"] * (noise_quantile(model, along["range_first"], 0.1) - 1) / div,
                        along["predicted"] * (noise_quantile(model, along["range_first"], 0.9) - 1) / div,
                        color="tab:gray", alpha=0.45, lw=0, label="p10\u2013p90 of the error on unseen ranges (out of fold)")
        ax.legend(fontsize=8, loc="lower left")
    ax.scatter(done["range_first"], done["residual"] / div, s=3, color="tab:red", zorder=3)
    ax.axhline(0, color="black", lw=0.8)
    sequence_axis(ax.xaxis, units, "first {unit} of the range")
    ax.set_ylabel(f"residual: recorded \u2212 predicted ({unit})")
    ax.grid(alpha=0.3)
    ax = axes[0][1]
    top = max(done["duration_us"].max(), done["predicted"].max()) / div
    ax.scatter(done["predicted"] / div, done["duration_us"] / div, s=5)
    ax.plot([0, top], [0, top], color="black", lw=0.8, label="recorded = predicted")
    ax.set_xlabel(f"predicted ({unit})")
    ax.set_ylabel(f"recorded ({unit})")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    ax = axes[1][1]
    ax.hist(done["residual"] / div, bins=50, color="tab:red")
    ax.set_xlabel(f"residual ({unit})")
    ax.set_ylabel("ranges")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def model_recordings(conn, model, key=None):
    """The attempts of the runs the model was fitted from (or of run `key`), concatenated."""
    keys = [key] if key is not None else model_runs(model)
    if not keys:
        raise RuntimeError("the model names no runs it was fitted from; give the run")
    return pd.concat([attempts(conn, find_run(conn, k)["id"]) for k in keys], ignore_index=True)


# --- 3. compare and 4. plan -------------------------------------------------------------------

COMPARISONS_TABLE = "comparisons"  # written by `millrace compare` and `millrace plan` (schema.sql)


def chosen_comparison(conn, kind, chosen=None, model_path=None, run_key=None):
    """(id, parameters (dict), description) of the comparison of `kind` ('compare' or 'plan') to
    draw, or None when the store has none: comparison `chosen` when given (an error when it is
    missing or of the other kind); else the latest made with the model file `model_path` and on
    the recorded run `run_key` where those are given and one was; else the latest. The
    description names it, its model and run, and says when none matched what was asked."""
    if chosen is None and not has_table(conn, COMPARISONS_TABLE):
        return None
    if chosen is not None:
        if not has_table(conn, COMPARISONS_TABLE):
            raise RuntimeError(f"comparison {chosen}: the store has no comparisons")
        row = conn.execute("SELECT id, kind, model, parameters FROM comparisons WHERE id = ?", (chosen,)).fetchone()
        if row is None:
            raise RuntimeError(f"comparison {chosen}: no such comparison in the store (see `millrace runs`)")
        if row[1] != kind:
            raise RuntimeError(f"comparison {chosen} is a {row[1]}, not a {kind}: give it as --{row[1]} {chosen}")
        rows, note = [row], ""
    else:
        rows = conn.execute("SELECT id, kind, model, parameters FROM comparisons WHERE kind = ? ORDER BY id DESC",
                            (kind,)).fetchall()
        if not rows:
            return None
        run_ids = None
        if run_key is not None:
            run = find_run(conn, run_key)
            run_ids = {str(run["id"]), str(run["name"])}
        same_model = (lambda model: model_path is None or model == model_path
                      or os.path.realpath(model) == os.path.realpath(model_path))
        same_run = lambda parameters: run_ids is None or str(parameters.get("run", "")) in run_ids
        matching = [r for r in rows if same_model(r[2]) and same_run(json.loads(r[3]))]
        asked = " and ".join(([f"--model {model_path}"] if model_path else []) + ([f"--run {run_key}"] if run_key else []))
        note = "" if matching or not asked else f"; none was made with {asked}, so the latest"
        rows = matching or rows
    comparison_id, _, model, text = rows[0]
    parameters = json.loads(text)
    run = parameters.get("run") or ""
    description = (f"comparison {comparison_id}: `millrace {kind}`, model {model or '(none: a replay)'}"
                   + (f", run {run}" if run else "") + note)
    return comparison_id, parameters, description


def best_rows(conn, comparison_id):
    """One row per (partitioner, workers) of a comparison: the queue order with the lowest mean
    makespan. Columns: partitioner, workers, makespan_us (mean over replicas), makespan_min_us,
    makespan_max_us, makespan_p10_us and makespan_p90_us (quantiles over the replicas, whose range
    durations are drawn from the model's noise), lower_bound_us, contiguous_bound_us (the best any
    contiguous partition could reach), utilisation (0..1), node_hours, deadline_met (fraction or
    NaN). Quantiles and the contiguous bound are NaN in rows stored before they existed."""
    spread = has_table(conn, "comparison_spread")
    frame = pd.read_sql_query(
        "SELECT partitioner, workers, queue_order, makespan_mean_us AS makespan_us, makespan_min_us, "
        "       makespan_max_us, lower_bound_us, utilisation, node_hours, deadline_met"
        + (", makespan_p10_us, makespan_p90_us, contiguous_bound_us "
           "FROM comparison_rows LEFT JOIN comparison_spread USING (comparison_id, position) "
           if spread else " FROM comparison_rows ")
        + "WHERE comparison_id = ? ORDER BY partitioner, workers, makespan_mean_us",
        conn, params=(comparison_id,))
    for column in ("makespan_p10_us", "makespan_p90_us", "contiguous_bound_us"):
        if column not in frame:
            frame[column] = float("nan")
    return frame.groupby(["partitioner", "workers"], as_index=False).first()


def compare_results(conn, chosen=None, model_path=None, run_key=None):
    """The `millrace compare` result chosen as chosen_comparison chooses it (see best_rows), or None
    when the store has none; its description is in the frame's attrs["comparison"]."""
    found = chosen_comparison(conn, "compare", chosen, model_path, run_key)
    if found is None:
        return None
    frame = best_rows(conn, found[0])
    frame.attrs["comparison"] = found[2]
    return None if frame.empty else frame


def plan_results(conn, chosen=None, model_path=None, run_key=None):
    """The `millrace plan` result chosen as chosen_comparison chooses it: every candidate
    (partitioner) at every worker count searched (best_rows' columns), or None when the store has
    none. Added columns: deadline_us, best (the candidate with the lowest mean makespan at its
    worker count) and chosen (that best one at the count the plan answered); its description is
    in the frame's attrs["comparison"]."""
    found = chosen_comparison(conn, "plan", chosen, model_path, run_key)
    if found is None:
        return None
    comparison_id, parameters, description = found
    frame = best_rows(conn, comparison_id)
    if frame.empty:
        return None
    frame = frame.sort_values(["workers", "makespan_us", "partitioner"]).reset_index(drop=True)
    frame["deadline_us"] = parameters["deadline_us"]
    frame["best"] = ~frame["workers"].duplicated()
    frame["chosen"] = frame["best"] & (frame["workers"] == parameters.get("answer_workers", -1))
    frame.attrs["comparison"] = description
    return frame


def no_results_message(what, command):
    return f"the store has no {what} results (table {COMPARISONS_TABLE}): run `{command}` on it first"


def compare_figure(results):
    """Makespan vs workers per partitioner (bars: p10 to p90 over the replicas) with the best any
    contiguous partition could reach, utilisation and node-hours."""
    div, unit = time_unit(results["makespan_us"].max())
    fig, (ax, ax2, ax3) = plt.subplots(1, 3, figsize=(15, 4.5), layout="constrained")
    contiguous = results.groupby("workers")["contiguous_bound_us"].max().dropna()
    if not contiguous.empty:
        ax.plot(contiguous.index, contiguous / div, color="black", ls="--",
                label="best any contiguous partition could reach")
    for name, rows in results.groupby("partitioner"):
        low = rows["makespan_p10_us"].fillna(rows["makespan_min_us"])
        high = rows["makespan_p90_us"].fillna(rows["makespan_max_us"])
        spread = [((rows["makespan_us"] - low) / div).clip(lower=0),
                  ((high - rows["makespan_us"]) / div).clip(lower=0)]
        line = ax.errorbar(rows["workers"], rows["makespan_us"] / div, yerr=spread, marker="o", ms=4,
                           capsize=3, label=name)
        colour = line[0].get_color()
        ax2.plot(rows["workers"], 100 * rows["utilisation"], marker="o", ms=4, color=colour, label=name)
        ax3.plot(rows["workers"], rows["node_hours"], marker="o", ms=4, color=colour, label=name)
    ax.set_ylabel(f"mean makespan ({unit}; bars: p10 to p90 over replicas)")
    ax.set_title("makespan vs workers")
    ax2.set_ylabel("utilisation (% of worker time busy)")
    ax2.set_title("utilisation")
    ax3.set_ylabel("node-hours")
    ax3.set_title("cost: node-hours")
    for a in (ax, ax2, ax3):
        a.set_xscale("log", base=2)
        a.set_xticks(sorted(results["workers"].unique()))
        a.xaxis.set_major_formatter(plt.FormatStrFormatter("%d"))
        a.set_xlabel("workers")
        a.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return fig


def plan_figure(results):
    """The plan's cost curve: node-hours against makespan at each worker count searched (the best
    candidate there; bars: p10 to p90 of the makespan over the replicas), the deadline and the
    chosen point; and makespan against workers, the best candidate's band with each candidate's
    own curve beside it (the best per count changes hands where they cross)."""
    best = results[results["best"]]
    div, unit = time_unit(max(results["makespan_us"].max(), results["deadline_us"].max()))
    deadline = results["deadline_us"].iloc[0] / div
    chosen = results[results["chosen"]]
    low = best["makespan_p10_us"].fillna(best["makespan_min_us"]) / div
    high = best["makespan_p90_us"].fillna(best["makespan_max_us"]) / div
    mean = best["makespan_us"] / div
    band = "p10\u2013p90 of the makespan over the replicas"
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(13, 4.5), layout="constrained")
    ax.errorbar(mean, best["node_hours"], xerr=[(mean - low).clip(lower=0), (high - mean).clip(lower=0)], marker="o",
                ms=4, capsize=3, label=f"best candidate per worker count (bars: {band})")
    for _, row in best.iterrows():
        ax.annotate(f"{row['workers']}", (row["makespan_us"] / div, row["node_hours"]), fontsize=7,
                    xytext=(3, 3), textcoords="offset points")
    ax.axvline(deadline, color="tab:red", ls="--", label=f"deadline {deadline:.2f} {unit}")
    ax2.fill_between(best["workers"], low, high, color="tab:gray", alpha=0.35, lw=0, label=band + " (best)")
    for name, rows in results.groupby("partitioner"):
        ax2.plot(rows["workers"], rows["makespan_us"] / div, marker=".", ms=3, lw=0.8, label=name)
    ax2.plot(best["workers"], mean, color="black", lw=1.6, label="best candidate per worker count")
    ax2.axhline(deadline, color="tab:red", ls="--", label=f"deadline {deadline:.2f} {unit}")
    if not chosen.empty:
        pick = chosen.iloc[0]
        label = f"chosen: {pick['workers']} workers, {pick['partitioner']}"
        ax.scatter([pick["makespan_us"] / div], [pick["node_hours"]], s=150, marker="*", color="tab:orange",
                   zorder=3, label=label)
        ax2.scatter([pick["workers"]], [pick["makespan_us"] / div], s=150, marker="*", color="tab:orange",
                    zorder=3, label=label)
    ax.set_xlabel(f"mean makespan ({unit})")
    ax.set_ylabel("cost (node-hours)")
    ax.set_title("cost vs makespan (labels: workers)")
    ax2.set_xlabel("workers")
    ax2.set_ylabel(f"mean makespan ({unit})")
    ax2.set_title("makespan vs workers, each candidate")
    if results["makespan_us"].max() > 20 * results["makespan_us"].min():  # the band near the deadline stays visible
        ax.set_xscale("log")
        ax2.set_yscale("log")
        ax2.set_xscale("log", base=2)
        ax2.xaxis.set_major_formatter(plt.FormatStrFormatter("%d"))
    for a in (ax, ax2):
        a.grid(alpha=0.3)
        a.legend(fontsize=8)
    return fig


# --- 5. real vs simulated ---------------------------------------------------------------------


def real_and_simulated(conn, key=None):
    """(real run, its simulation): the latest simulated run replaying a real run (or run `key`)."""
    table = runs(conn)
    real = table[table["source"] == "real"] if key is None else table[
        (table["name"] == str(key)) | (table["id"].astype(str) == str(key))]
    for _, sim in table[table["source"] == "simulated"].iloc[::-1].iterrows():
        origin = sim["params"].get("simulated_from_run")
        match = real[real["id"] == origin]
        if not match.empty:
            return match.iloc[0], sim
    raise RuntimeError("no simulated run of a real run in the store: run `millrace run --cluster local` "
                       "and then `millrace simulate --run <that run>`")


def per_item(frame):
    """Each succeeded item's worker, start (s from the run's first start) and duration (s)."""
    done = frame[frame["outcome"] == "succeeded"].set_index("item_id")
    return pd.DataFrame({"worker": done["worker"],
                         "start_s": (done["start_us"] - frame["start_us"].min()) / MICROS_PER_SECOND,
                         "duration_s": done["duration_us"] / MICROS_PER_SECOND})


def real_vs_simulated(real, real_frame, sim, sim_frame):
    """The real run's Gantt chart over its simulation's, on one time axis, and completions over time."""
    origins = {"real": real_frame["start_us"].min(), "sim": sim_frame["start_us"].min()}
    spans = {"real": real_frame["end_us"].max() - origins["real"], "sim": sim_frame["end_us"].max() - origins["sim"]}
    div, unit = time_unit(max(spans.values()))
    fig, axes = plt.subplots(3, 1, figsize=(10, 9), sharex=True, layout="constrained",
                             gridspec_kw={"height_ratios": [2, 2, 1.5]})
    for ax, run, frame, key in ((axes[0], real, real_frame, "real"), (axes[1], sim, sim_frame, "sim")):
        scale = gantt_axes(ax, frame, div, unit, origins[key])
        ax.set_title(f"{run['source']} run '{run['name']}' (id {run['id']}): makespan "
                     f"{spans[key] / div:.2f} {unit}")
        ax.set_xlabel("")
    ax = axes[2]
    for run, frame, key in ((real, real_frame, "real"), (sim, sim_frame, "sim")):
        ends = (frame.loc[frame["outcome"] == "succeeded", "end_us"].sort_values() - origins[key]) / div
        ax.step(ends, range(1, len(ends) + 1), where="post", label=f"{run['source']} (run {run['id']})")
    ax.set_xlabel(f"time since the run's first start ({unit})")
    ax.set_ylabel("items finished")
    diff = 100 * (spans["sim"] - spans["real"]) / spans["real"] if spans["real"] else float("nan")
    ax.set_title(f"items finished over time (simulated makespan {diff:+.1f}% vs real)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    colour_bar(fig, axes.tolist(), scale, real_frame, real["units"])
    return fig


# --- the report -------------------------------------------------------------------------------


def figures_of_store(conn, model_path=None, run_key=None, compare_id=None, plan_id=None):
    """Yields (name, caption, figure builder) for every figure the store (and model) can give;
    the comparisons drawn are those chosen (compare_id, plan_id), else the latest made with this
    model and run (chosen_comparison)."""
    run = find_run(conn, run_key)
    frame = attempts(conn, run["id"])
    yield "run_durations", f"Per-range duration along the sequence, run '{run['name']}'", \
        lambda: range_durations(run, frame)
    yield "run_gantt", f"Workers' Gantt chart, run '{run['name']}'", lambda: gantt(run, frame)
    yield "run_tail", f"The straggler tail, run '{run['name']}'", lambda: straggler_tail(run, frame)
    if model_path:
        model = load_model(model_path)
        yield "model_coefficients", f"Fitted cost model {os.path.basename(model_path)}", \
            lambda: model_coefficients(model)
        yield "model_fit", "Cost model against the recorded ranges, residuals", \
            lambda: model_fit(model, model_recordings(conn, model))
    compared = compare_results(conn, compare_id, model_path, run_key)
    if compared is not None:
        yield "compare", f"Partitioners and worker counts compared ({compared.attrs['comparison']})", \
            lambda: compare_figure(compared)
    planned = plan_results(conn, plan_id, model_path, run_key)
    if planned is not None:
        yield "plan", f"The cost/deadline curve and the chosen plan ({planned.attrs['comparison']})", \
            lambda: plan_figure(planned)
    try:
        real, sim = real_and_simulated(conn)
    except RuntimeError:
        return
    yield "real_vs_simulated", f"Real run '{real['name']}' against its simulation", \
        lambda: real_vs_simulated(real, attempts(conn, real["id"]), sim, attempts(conn, sim["id"]))


def figure_texts(fig):
    """(titles, legend entries) of a figure's axes, in order: what it shows, in its own words."""
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    legend = [text.get_text() for ax in fig.axes if ax.get_legend() for text in ax.get_legend().get_texts()]
    return titles, legend


def figure_html(name, caption, fig):
    """The report's <figure> of one PNG: its caption, and its titles and legend entries as data-titles
    and data-legend (" | " between entries) for a reader that cannot see the picture, and for tests."""
    titles, legend = figure_texts(fig)
    attribute = lambda texts: html.escape(" | ".join(texts), quote=True)
    return (f"<figure id=\"{name}\" data-titles=\"{attribute(titles)}\" data-legend=\"{attribute(legend)}\">"
            f"<img src=\"{name}.png\" alt=\"{html.escape(caption, quote=True)}\">"
            f"<figcaption>{html.escape(caption)}</figcaption></figure>")


def write_report(store, out, model_path=None, run_key=None, compare_id=None, plan_id=None):
    """Renders every figure to out/*.png and out/index.html; returns the PNG paths."""
    matplotlib.use("Agg")
    os.makedirs(out, exist_ok=True)
    conn = connect(store)
    written = []
    sections = []
    for name, caption, build in figures_of_store(conn, model_path, run_key, compare_id, plan_id):
        fig = build()
        path = save(fig, out, name)
        sections.append(figure_html(name, caption, fig))
        plt.close(fig)
        written.append(path)
    page = ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>millrace report</title>"
            "<style>body{font-family:sans-serif;max-width:1300px;margin:auto}img{max-width:100%}"
            "figure{margin:2em 0}</style></head><body>\n"
            f"<h1>millrace report</h1><p>trace store: {html.escape(os.path.abspath(store))}</p>\n"
            + "\n".join(sections) + "\n</body></html>\n")
    write_whole(os.path.join(out, "index.html"), lambda f: f.write(page), mode="w")
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description="Render a millrace trace store's figures to PNG and HTML.")
    parser.add_argument("--store", required=True, help="trace store (SQLite file)")
    parser.add_argument("-o", "--output", required=True, help="directory for the PNGs and index.html")
    parser.add_argument("--model", help="cost model JSON written by `millrace fit`")
    parser.add_argument("--run", help="run (id or name) of the recorded-run figures (default: the first recorded)")
    parser.add_argument("--compare", type=int, help="the compare to draw (default: the latest with --model and --run)")
    parser.add_argument("--plan", type=int, help="the plan to draw (default: the latest with --model and --run)")
    args = parser.parse_args(argv)
    try:
        written = write_report(args.store, args.output, args.model, args.run, args.compare, args.plan)
    except (RuntimeError, OSError, sqlite3.Error, ValueError) as error:
        print(f"millrace: {error}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    print(os.path.join(args.output, "index.html"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
