/* A mock interview: the transcript and answers (over the interview's WebSocket, by POST when
   the socket cannot open), the code editor and its runs, ending and the scorecard, and optional
   voice (the browser's own speech synthesis and recognition). The page renders the interview's
   first state as JSON in #interview-data; every later state comes from the API. */
(function () {
  "use strict";
  var root = document.getElementById("interview");
  var data = document.getElementById("interview-data");
  if (!root || !data) return;

  var view = JSON.parse(data.textContent);
  var api = "/api/v1/interviews/" + encodeURIComponent(view.id);
  var md = window.tutorgraphMarkdown;
  var el = window.tutorgraphApi.el;
  var call = window.tutorgraphApi.client(api);

  function $(id) { return document.getElementById(id); }
  var transcript = $("transcript");
  var form = $("answer-form");
  var answer = $("answer");
  var sendBtn = $("send");
  var speakBtn = $("speak");
  var status = $("status");
  var answerError = $("answer-error");
  var code = $("code");
  var runBtn = $("run");
  var output = $("code-output");
  var endBtn = $("end");

  var running = false;  // a turn (or the ending) is under way
  var spoken = view.messages.length;  // messages already on screen when the page opened

  // ---- the header: timer, phase, coverage ----
  var PHASES = { intro: "Introduction", exploration: "Your experience", technical: "Technical questions", closing: "Closing" };
  var startedAt = Date.now();
  var ticker = null;

  function clock(seconds) {
    seconds = Math.max(0, Math.floor(seconds));
    var m = Math.floor(seconds / 60);
    var s = seconds % 60;
    return (m < 10 ? "0" : "") + m + ":" + (s < 10 ? "0" : "") + s;
  }
  function elapsedOf(v) {
    if (typeof v.elapsed_seconds === "number") return v.elapsed_seconds;
    var created = Date.parse(v.created_at);
    return isNaN(created) ? 0 : (Date.now() - created) / 1000;
  }
  // The server's count of seconds, carried on by this browser's clock (whatever its time zone
  // or drift); a finished interview's clock stands still.
  function syncTimer(v) {
    startedAt = Date.now() - elapsedOf(v) * 1000;
    tick();
    if (v.status === "complete") { if (ticker) clearInterval(ticker); ticker = null; }
    else if (!ticker) ticker = setInterval(tick, 1000);
  }
  function tick() { $("timer").textContent = clock((Date.now() - startedAt) / 1000); }

  function renderHeader(v) {
    $("phase").textContent = v.status === "complete" ? "Finished" : (PHASES[v.phase] || v.phase);
    var c = v.coverage || { explored: 0, total: 0 };
    $("coverage").textContent = c.total
      ? c.explored + " of " + c.total + " resume topic" + (c.total === 1 ? "" : "s") + " explored"
      : "no topics found in the resume";
  }

  // ---- the transcript ----
  function fill(bubble, role, text) {
    if (role === "interviewer" && md) bubble.innerHTML = md.markdown(text);  // escapes HTML first
    else bubble.textContent = text;
  }
  function message(role, text) {
    var msg = el("div", { "class": "msg " + role, "data-testid": role + "-message" });
    msg.appendChild(el("span", { "class": "who" }, role === "interviewer" ? "Interviewer" : "You"));
    var bubble = el("div", { "class": "bubble" });
    fill(bubble, role, text);
    msg.appendChild(bubble);
    transcript.appendChild(msg);
    return bubble;
  }
  function scrollDown() { transcript.scrollTop = transcript.scrollHeight; }
  function renderTranscript(v) {
    transcript.textContent = "";
    v.messages.forEach(function (m) { message(m.role, m.text); });
    scrollDown();
  }

  // ---- the whole page from a state ----
  function render(v, fresh) {
    view = v;
    renderHeader(v);
    renderTranscript(v);
    syncTimer(v);
    var complete = v.status === "complete";
    if (fresh) speakNew(v);
    [answer, code].forEach(function (box) { box.disabled = complete; });
    setRunning(running);
    endBtn.hidden = complete;
    if (complete) {
      status.textContent = "This interview is complete: your scorecard is below.";
      renderScorecard(v.scorecard);
    }
  }

  function setRunning(on, message) {
    running = on;
    var complete = view.status === "complete";
    sendBtn.disabled = on || complete;
    endBtn.disabled = on || complete;
    speakBtn.disabled = complete;
    runBtn.disabled = complete;
    if (message !== undefined) status.textContent = message;
  }

  // ---- answering: the WebSocket, or POST /answer when it cannot open ----
  var socket = null;
  var socketBroken = typeof window.WebSocket !== "function";
  var turn = null;  // the running turn's frame handler and drop handler

  function openSocket() {
    return new Promise(function (resolve, reject) {
      if (socket && socket.readyState === WebSocket.OPEN) { resolve(socket); return; }
      if (socketBroken) { reject(new Error("no socket")); return; }
      var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
      var ws;
      // The session cookie goes with the handshake: no token in the URL.
      try { ws = new WebSocket(scheme + window.location.host + api + "/ws"); }
      catch (e) { reject(e); return; }
      var opened = false;
      var timeout = setTimeout(function () { if (!opened) { ws.close(); reject(new Error("timeout")); } }, 8000);
      ws.onopen = function () { opened = true; clearTimeout(timeout); socket = ws; resolve(ws); };
      ws.onmessage = function (e) {
        var frame;
        try { frame = JSON.parse(e.data); } catch (err) { return; }
        if (turn) turn.frame(frame);
      };
      ws.onclose = function () {
        clearTimeout(timeout);
        if (socket === ws) socket = null;
        if (!opened) reject(new Error("closed"));
        else if (turn) turn.dropped();
      };
    });
  }

  function finish(v) {
    turn = null;
    answerError.textContent = "";
    setRunning(false, v.status === "complete" ? undefined : "Your turn.");
    render(v, true);
  }

  // After an error or a dropped socket: show what the server holds, and give the answer back
  // to the learner unless the server recorded it.
  async function recover(text, reason) {
    turn = null;
    var fresh = null;
    try { fresh = await call("GET", ""); } catch (e) { fresh = null; }
    var shown = fresh || view;
    var candidate = shown.messages.filter(function (m) { return m.role === "candidate"; });
    var recorded = candidate.length && candidate[candidate.length - 1].text.trim() === text.trim();
    setRunning(false, "");
    render(shown, !!fresh);
    if (!recorded && !answer.value.trim()) answer.value = text;
    answerError.textContent = reason + (recorded ? "" : " Your answer is back in the box: send it again.");
  }

  function viaSocket(ws, text) {
    var reply = null;
    var said = "";
    turn = {
      frame: function (f) {
        if (f.type === "node") status.textContent = "thinking: " + f.node + "…";
        else if (f.type === "text") {
          said += f.delta;
          if (!reply) reply = message("interviewer", "");
          fill(reply, "interviewer", said);
          scrollDown();
        } else if (f.type === "turn") finish(f.interview);
        else if (f.type === "error") recover(text, f.detail || "The interviewer could not answer.");
      },
      dropped: function () { recover(text, "The connection dropped during the turn."); },
    };
    try { ws.send(JSON.stringify({ type: "answer", text: text })); }
    catch (err) { recover(text, "The connection dropped before your answer was sent."); }
  }

  async function viaPost(text) {
    try { finish(await call("POST", "/answer", { text: text })); }
    catch (err) { recover(text, err.message); }
  }

  async function submit(text) {
    if (running || view.status === "complete") return;
    stopListening();
    answerError.textContent = "";
    setRunning(true, "thinking…");
    message("candidate", text);
    scrollDown();
    var ws = null;
    try { ws = await openSocket(); } catch (e) { socketBroken = true; }  // answers go by POST from now on
    if (ws) viaSocket(ws, text); else await viaPost(text);
  }

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    if (running) return;
    var text = answer.value.trim();
    if (!text) { answerError.textContent = "Write an answer first."; return; }
    answer.value = "";
    submit(text);
  });
  answer.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      if (!running) form.requestSubmit();
    }
  });

  // ---- the code editor ----
  var draftKey = "tutorgraph-interview-code:" + view.id;
  var leaving = false;  // Esc pressed: the next Tab leaves the editor instead of indenting

  function saveDraft() { try { window.localStorage.setItem(draftKey, code.value); } catch (e) { /* optional */ } }
  try { code.value = window.localStorage.getItem(draftKey) || ""; } catch (e) { /* optional */ }

  function indent(outdent) {
    var text = code.value;
    var start = code.selectionStart;
    var end = code.selectionEnd;
    if (!outdent && start === end) { code.setRangeText("    ", start, end, "end"); return; }
    var lineStart = text.lastIndexOf("\n", start - 1) + 1;
    var lines = text.slice(lineStart, end).split("\n");
    var trailing = lines.length > 1 && lines[lines.length - 1] === "" ? lines.pop() : null;
    var changed = lines.map(function (line) { return outdent ? line.replace(/^ {1,4}/, "") : "    " + line; });
    if (trailing !== null) changed.push(trailing);
    code.setRangeText(changed.join("\n"), lineStart, end, start === end ? "end" : "select");
  }
  code.addEventListener("keydown", function (e) {
    if (e.key === "Escape") { leaving = true; return; }
    if (e.key === "Tab" && !leaving && !e.ctrlKey && !e.altKey && !e.metaKey) {
      e.preventDefault();
      indent(e.shiftKey);
      saveDraft();
      return;
    }
    leaving = false;
  });
  code.addEventListener("blur", function () { leaving = false; });
  code.addEventListener("input", saveDraft);

  var OUTCOMES = {
    ok: "Ran successfully", error: "Stopped with an error", syntax_error: "Syntax error",
    timeout: "Took too long and was stopped", memory: "Used too much memory and was stopped",
    killed: "Stopped by the sandbox", too_large: "The code is too large to run",
  };

  function block(title, text, cls) {
    output.appendChild(el("h3", {}, title));
    output.appendChild(el("pre", { "class": cls, "data-testid": "code-" + cls }, text));
  }
  function showRun(r) {
    output.textContent = "";
    var facts = [OUTCOMES[r.outcome] || r.outcome];
    if (r.exit_code !== null && r.exit_code !== undefined) facts.push("exit code " + r.exit_code);
    if (typeof r.duration_ms === "number") facts.push(Math.round(r.duration_ms) + " ms");
    output.appendChild(el("p", { "class": "run-outcome " + (r.outcome === "ok" ? "ok" : "bad"), "data-outcome": r.outcome }, facts.join(" · ")));
    if (r.stdout) block("Output", r.stdout, "stdout");
    if (r.stderr) block("Errors", r.stderr, "stderr");
    if (!r.stdout && !r.stderr) output.appendChild(el("p", { "class": "muted" }, "No output."));
    if (r.truncated) output.appendChild(el("p", { "class": "muted" }, "The output was cut short."));
    if (r.signals && r.signals.length) {
      output.appendChild(el("h3", {}, "What the interviewer noticed"));
      var ul = el("ul", { "class": "signals" });
      r.signals.forEach(function (s) { ul.appendChild(el("li", {}, s.replace(/_/g, " "))); });
      output.appendChild(ul);
    }
  }
  runBtn.addEventListener("click", async function () {
    if (!code.value.trim()) { output.textContent = ""; output.appendChild(el("p", { "class": "error", role: "alert" }, "Write some code first.")); return; }
    runBtn.disabled = true;
    output.textContent = "";
    output.appendChild(el("p", { "class": "muted" }, "Running…"));
    try { showRun(await call("POST", "/code", { code: code.value })); }
    catch (err) {
      output.textContent = "";
      output.appendChild(el("p", { "class": "error", role: "alert" }, "The code could not run: " + err.message));
    } finally { runBtn.disabled = view.status === "complete"; }
  });

  // ---- ending and the scorecard ----
  endBtn.addEventListener("click", async function () {
    if (running || view.status === "complete") return;
    if (!window.confirm("End the interview now? The interviewer will write your scorecard and you can't answer any more.")) return;
    stopListening();
    answerError.textContent = "";
    setRunning(true, "The interviewer is writing your scorecard…");
    try {
      var v = await call("POST", "/end");
      setRunning(false);
      render(v, true);
      var heading = $("scorecard-heading");
      heading.setAttribute("tabindex", "-1");
      heading.focus();
    } catch (err) {
      setRunning(false, "");
      answerError.textContent = "The interview could not be ended: " + err.message;
    }
  });

  var SCORES = [
    ["overall", "Overall"], ["communication", "Communication"], ["technical", "Technical"],
    ["problem_solving", "Problem solving"], ["code_quality", "Code quality"],
  ];

  function list(title, items, testid) {
    var section = el("div", { "class": "sc-list", "data-testid": testid });
    section.appendChild(el("h3", {}, title));
    if (!items || !items.length) { section.appendChild(el("p", { "class": "muted" }, "None noted.")); return section; }
    var ul = el("ul", {});
    items.forEach(function (item) { ul.appendChild(el("li", {}, item)); });
    section.appendChild(ul);
    return section;
  }

  function scoreCard(key, label, score) {
    var box = el("div", { "class": "score", "data-score": key, "data-testid": "score-" + key });
    var headingId = "score-" + key + "-heading";
    box.appendChild(el("h3", { id: headingId }, label));
    score = score || { score: null, summary: "", evidence: [] };
    if (score.score === null || score.score === undefined) {
      box.appendChild(el("p", { "class": "score-value muted" }, "not assessed"));
    } else {
      var value = el("p", { "class": "score-value" });
      value.appendChild(el("strong", {}, String(score.score)));
      value.appendChild(document.createTextNode("/100"));
      box.appendChild(value);
      var meter = el("meter", { min: "0", max: "100", low: "50", high: "75", optimum: "100",
        value: String(score.score), "aria-labelledby": headingId });
      box.appendChild(meter);
    }
    if (score.summary) box.appendChild(el("p", {}, score.summary));
    (score.evidence || []).forEach(function (quote) { box.appendChild(el("blockquote", {}, quote)); });
    return box;
  }

  function renderScorecard(card) {
    var section = $("scorecard");
    var body = $("scorecard-body");
    section.hidden = !card;
    body.textContent = "";
    if (!card) return;
    var grid = el("div", { "class": "scores" });
    SCORES.forEach(function (pair) { grid.appendChild(scoreCard(pair[0], pair[1], card[pair[0]])); });
    body.appendChild(grid);
    var lists = el("div", { "class": "sc-lists" });
    lists.appendChild(list("Strengths", card.strengths, "strengths"));
    lists.appendChild(list("To work on", card.weaknesses, "weaknesses"));
    lists.appendChild(list("Recommendations", card.recommendations, "recommendations"));
    lists.appendChild(list("Topics covered", card.topics_covered, "topics-covered"));
    body.appendChild(lists);
    var facts = el("p", { "class": "muted" }, card.questions_asked + " question" + (card.questions_asked === 1 ? "" : "s") + " asked · length " + clock(elapsedOf(view)) + ".");
    body.appendChild(facts);
    if (card.ended_because) {
      var ended = el("p", { "data-testid": "ended-because" });
      ended.appendChild(el("strong", {}, "Why it ended: "));
      ended.appendChild(document.createTextNode(card.ended_because));
      body.appendChild(ended);
    }
  }

  // ---- voice, when the browser has it (off by default) ----
  var synth = window.speechSynthesis && window.SpeechSynthesisUtterance ? window.speechSynthesis : null;
  var Recognition = window.SpeechRecognition || window.webkitSpeechRecognition || null;
  var readAloud = $("read-aloud");
  var recognizer = null;

  function plain(text) {
    return text.replace(/```[\s\S]*?```/g, " (code on screen) ")
      .replace(/(^|\n\n)(?: {4}|\t).*(?:\n(?: {4}|\t).*|\n[ \t]*(?=\n(?: {4}|\t)))*/g, "$1(code on screen)")  // indented code
      .replace(/[`*_#>|]/g, "").trim();
  }
  function say(text) {
    if (!synth || !readAloud.checked || !text) return;
    var utterance = new window.SpeechSynthesisUtterance(plain(text));
    utterance.lang = document.documentElement.lang || "en";
    synth.speak(utterance);
  }
  function speakNew(v) {
    v.messages.slice(spoken).forEach(function (m) { if (m.role === "interviewer") say(m.text); });
    spoken = v.messages.length;
  }
  function stopListening() { if (recognizer) recognizer.stop(); }

  if (synth) {
    $("read-aloud-label").hidden = false;
    readAloud.checked = false;
    readAloud.addEventListener("change", function () {
      synth.cancel();
      if (!readAloud.checked) return;
      var asked = view.messages.filter(function (m) { return m.role === "interviewer"; });
      if (asked.length && view.status !== "complete") say(asked[asked.length - 1].text);
    });
  }
  if (Recognition) {
    speakBtn.hidden = false;
    speakBtn.addEventListener("click", function () {
      if (recognizer) { recognizer.stop(); return; }
      var r;
      try { r = new Recognition(); }
      catch (err) { answerError.textContent = "Speech input could not start; typing always works."; return; }
      r.lang = document.documentElement.lang || "en";
      r.continuous = true;
      r.interimResults = false;
      r.onresult = function (e) {
        for (var i = e.resultIndex; i < e.results.length; i++) {
          if (!e.results[i].isFinal) continue;
          var words = e.results[i][0].transcript.trim();
          if (!words) continue;
          answer.value += (answer.value && !/\s$/.test(answer.value) ? " " : "") + words;
        }
      };
      r.onerror = function (e) {
        answerError.textContent = e.error === "not-allowed" || e.error === "service-not-allowed"
          ? "The browser did not allow the microphone; typing always works."
          : "Speech input stopped (" + e.error + "); typing always works.";
      };
      r.onend = function () {
        recognizer = null;
        speakBtn.textContent = "Speak answer";
        speakBtn.setAttribute("aria-pressed", "false");
      };
      try { r.start(); } catch (err) { answerError.textContent = "Speech input could not start; typing always works."; return; }
      recognizer = r;
      speakBtn.textContent = "Stop listening";
      speakBtn.setAttribute("aria-pressed", "true");
    });
  }
  if (!synth || !Recognition) {
    var note = $("voice-note");
    note.hidden = false;
    note.textContent = !synth && !Recognition
      ? "Voice isn't available in this browser; typing always works."
      : !Recognition
        ? "Speaking your answers isn't available in this browser; typing always works."
        : "Reading questions aloud isn't available in this browser.";
  }

  // ---- start ----
  render(view, false);
  if (view.status !== "complete") status.textContent = "Your turn.";
  sendBtn.disabled = view.status === "complete";  // sending is handled from here on
})();
