// The live page's script: fetches /status every two seconds and shows what it says. Every
// figure comes from /status as the server computed it (the page does no arithmetic of its own
// beyond placing bars); every text from the run (ids, reasons, paths, the cluster's errors) is
// set with textContent, never parsed as HTML, so an id holding "<script>" is shown as text.
'use strict';

(function () {
  const REFRESH_MS = 2000;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function byId(id) {
    return document.getElementById(id);
  }

  // "45s", "3m12s", "2h05m": as the terminal's progress line prints durations.
  function duration(us) {
    if (us === null || us === undefined) return '?';
    const seconds = Math.ceil(Math.max(us, 0) / 1e6);
    const two = (n) => String(n).padStart(2, '0');
    if (seconds < 60) return seconds + 's';
    if (seconds < 3600) return Math.floor(seconds / 60) + 'm' + two(seconds % 60) + 's';
    return Math.floor(seconds / 3600) + 'h' + two(Math.floor((seconds % 3600) / 60)) + 'm';
  }

  function setFigure(id, value) {
    const node = byId(id);
    node.textContent = value === null || value === undefined ? '?' : String(value);
    node.dataset.value = value === null || value === undefined ? '' : String(value);
  }

  function setDuration(id, us) {
    const node = byId(id);
    node.textContent = duration(us);
    node.dataset.us = us === null || us === undefined ? '' : String(us);
  }

  function showProgress(progress) {
    for (const key of ['done', 'total', 'succeeded', 'in_flight', 'failed', 'remaining']) {
      setFigure(key.replace('_', '-'), progress[key]);
    }
    const share = (n) => (progress.total > 0 ? (100 * n) / progress.total : 0) + '%';
    byId('bar-succeeded').style.width = share(progress.succeeded);
    byId('bar-failed').style.width = share(progress.failed);
    byId('bar-in-flight').style.width = share(progress.in_flight);
  }

  function showEta(eta) {
    for (const [id, key] of [['expected', 'expected_us'], ['p10', 'p10_us'], ['p90', 'p90_us'],
      ['work', 'remaining_predicted_us']]) {
      setDuration('eta-' + id, eta[key]);
    }
    setFigure('eta-slots', eta.slots);
    const note = byId('eta-note');  // what the run learnt of the model: "ranges run 0.10x the model"
    note.textContent = eta.note || '';
    note.hidden = !eta.note;
  }

  // The makespan the run was predicted to take (its plan simulated, or the comparison it carries out).
  function showPrediction(prediction) {
    byId('prediction').hidden = !prediction;
    if (!prediction) return;
    for (const key of ['p10', 'p50', 'p90']) setDuration('prediction-' + key, prediction['makespan_' + key + '_us']);
    byId('prediction-source').textContent = prediction.source;
  }

  // One row per worker, its recent attempts as bars over the window from the oldest shown
  // start to the status's time.
  function showTimeline(workers, now) {
    const box = byId('timeline');
    box.replaceChildren();
    let from = now;
    for (const worker of workers) {
      for (const a of worker.attempts) from = Math.min(from, a.start_us);
    }
    const span = Math.max(now - from, 1);
    byId('timeline-window').textContent = workers.length ? '(last ' + duration(now - from) + ')' : '(none yet)';
    for (const worker of workers) {
      const row = el('div', 'worker');
      row.dataset.worker = worker.worker;
      row.append(el('div', 'name', worker.worker || '(no worker)'));
      const track = el('div', 'track');
      for (const a of worker.attempts) {
        const end = a.end_us === null ? now : a.end_us;
        const bar = el('div', 'attempt ' + a.outcome, a.item);
        bar.dataset.item = a.item;
        bar.dataset.attempt = String(a.attempt);
        bar.dataset.outcome = a.outcome;
        bar.style.left = (100 * (a.start_us - from)) / span + '%';
        bar.style.width = (100 * (end - a.start_us)) / span + '%';
        bar.title = a.item + ' attempt ' + a.attempt + ': ' + a.outcome + (a.reason ? ' (' + a.reason + ')' : '') +
          ', ' + duration(end - a.start_us);
        track.append(bar);
      }
      row.append(track);
      box.append(row);
    }
  }

  function showFailures(failed) {
    const body = byId('failures').tBodies[0];
    body.replaceChildren();
    byId('failures-count').textContent = '(' + failed.length + ')';
    byId('failures-count').dataset.value = String(failed.length);
    for (const job of failed) {
      const row = el('tr');
      row.dataset.item = job.item;
      row.append(el('td', 'path', job.item), el('td', null, job.range), el('td', null, job.worker),
        el('td', null, job.attempts), el('td', null, job.reason));
      const logs = el('td');
      for (const path of job.logs || []) logs.append(el('div', 'path', path));
      if (!(job.logs || []).length) logs.append(el('span', 'muted', 'none on this machine'));
      row.append(logs);
      body.append(row);
    }
  }

  function definitions(pairs) {
    const list = el('dl');
    for (const [term, value, className] of pairs) list.append(el('dt', null, term), el('dd', className, value));
    return list;
  }

  function showApi(box, api) {
    const state = el('span', api.reachable ? 'state-ok' : 'state-bad',
      api.reachable ? 'reachable' : 'unreachable for ' + duration(api.unreachable_for_us));
    state.id = 'api-state';
    state.dataset.value = String(api.reachable);
    const line = el('p', null, 'API: ');
    line.append(state);
    box.append(line, definitions([
      ['failures in a row', api.consecutive_failures],
      ['retries', api.retries],
      ['rejections', api.rejections],
      ['last error', api.last_error || 'none'],
    ]));
    for (const source of api.retrying) {
      box.append(el('p', 'error', 'retrying ' + source.source + ' (' + source.failures_in_a_row + ' in a row): ' +
        source.problem));
    }
  }

  function showUnschedulable(box, pods, now) {
    const heading = el('p', null, 'unschedulable: ');
    const count = el('span', pods.length ? 'state-bad' : 'state-ok', String(pods.length));
    count.id = 'unschedulable-count';
    count.dataset.value = String(pods.length);
    heading.append(count);
    box.append(heading);
    if (!pods.length) return;
    const table = el('table');
    const head = el('tr');
    for (const name of ['pod', 'item', 'waiting for', 'reason']) head.append(el('th', null, name));
    table.append(head);
    for (const pod of pods) {
      const row = el('tr');
      row.append(el('td', 'path', pod.pod), el('td', 'path', pod.item === undefined ? '' : pod.item),
        el('td', null, duration(pod.pending_for_us)), el('td', null, pod.reason));
      table.append(row);
    }
    box.append(table);
  }

  function showCluster(status) {
    const box = byId('cluster');
    box.replaceChildren();
    const run = status.run || {};
    const cluster = status.cluster;
    box.append(definitions([
      ['kind', cluster ? cluster.kind + ' (' + cluster.mode + ')' : run.cluster || '?'],
      ['where', run.where || ''],
      ['policy', status.policy + ', ' + status.target + ' at once'],
    ]));
    if (cluster) {
      showApi(box, cluster.api);
      const figures = [];
      if (cluster.job) figures.push(['pool job', cluster.job.name + ': ' + cluster.job.state]);
      if (cluster.pods) {
        figures.push(['pods', Object.entries(cluster.pods).map(([phase, n]) => phase + ' ' + n).join(', ') || 'none']);
      }
      if (cluster.held_by_cap !== undefined) figures.push(['held by the cap', cluster.held_by_cap]);
      const lost = cluster.workers_lost || [];
      const replaced = lost.filter((w) => w.state === 'deleting' || w.state === 'deleted');
      if (replaced.length) {
        figures.push(['workers replaced', replaced.length + ': ' +
          replaced.map((w) => 'pod ' + w.pod + ' ' + w.state + ', ' + w.why).join('; ')]);
      }
      const waiting = lost.filter((w) => w.state === 'lost');
      if (waiting.length) {
        figures.push(['workers lost', waiting.map((w) => w.worker + ' (' + w.why + ', not heard from since)').join('; ')]);
      }
      for (const w of lost.filter((r) => r.state === 'refused')) {
        figures.push(['could not replace ' + w.pod, w.why + '; deleting its pod was refused: ' + w.error, 'error']);
      }
      figures.push(['API requests pending', cluster.requests_pending]);
      if (cluster.trouble) figures.push(['trouble', cluster.trouble, 'error']);
      box.append(definitions(figures));
      showUnschedulable(box, cluster.unschedulable, status.at_us);
    } else {
      box.append(el('p', 'muted', run.cluster === 'local'
        ? 'local processes on this machine: no cluster API, no pods to schedule'
        : 'no cluster API followed: the workers report through ' + (run.where || 'their queue')));
    }
    const store = status.store;
    if (store && (store.unwritten_attempts > 0 || store.last_error)) {
      box.append(el('p', 'error', 'trace store busy: ' + store.unwritten_attempts + ' attempts kept in memory' +
        (store.last_error ? ' (' + store.last_error + ')' : '')));
    }
  }

  function show(status) {
    if (!status.progress) {  // "{}": the run has not published its first status yet
      byId('updated').textContent = 'waiting for the run\'s first status';
      return;
    }
    byId('run-title').textContent = status.run ? 'run ' + status.run.id : 'run';
    showProgress(status.progress);
    showEta(status.eta);
    showPrediction(status.prediction);
    showTimeline(status.recent_attempts, status.at_us);
    showFailures(status.jobs_failed);
    showCluster(status);
    const updated = byId('updated');
    updated.className = 'muted';
    updated.dataset.atUs = String(status.at_us);
    updated.textContent = 'updated ' + new Date().toLocaleTimeString() + (status.run_failed ? ', items failed' : '');
  }

  async function refresh() {
    try {
      const answer = await fetch('/status', { cache: 'no-store' });
      if (!answer.ok) throw new Error('/status answered HTTP ' + answer.status);
      show(await answer.json());
    } catch (error) {
      const updated = byId('updated');
      updated.className = 'error';
      updated.textContent = 'cannot read /status: ' + error.message + ' (retrying)';
    } finally {
      setTimeout(refresh, REFRESH_MS);
    }
  }

  refresh();
})();
