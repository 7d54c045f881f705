/* The lesson page around the chat: the resizable lesson | chat split, and marking the lesson
   complete without leaving the page (a reload would drop a conversation mid-reply). */
(function () {
  "use strict";
  var csrfMeta = document.querySelector('meta[name="csrf-token"]');
  var csrfToken = csrfMeta ? csrfMeta.getAttribute("content") : "";

  // ---- progress: PUT /api/v1/lessons/{id}/progress, then show the new state in place ----
  var progress = document.querySelector(".progress-form");
  if (progress) {
    var statusNote = progress.querySelector("[data-testid=lesson-status]");
    var toggle = progress.querySelector("button[type=submit]");
    var field = progress.querySelector("input[name=completed]");
    var showState = function (completed) {
      progress.dataset.completed = completed ? "true" : "false";
      field.value = completed ? "false" : "true";
      statusNote.hidden = !completed;
      statusNote.textContent = "✓ Completed";
      toggle.textContent = completed ? "Mark as not complete" : "Mark complete";
      toggle.className = completed ? "link-button" : "";
    };
    progress.addEventListener("submit", async function (e) {
      e.preventDefault();
      var wanted = progress.dataset.completed !== "true";
      toggle.disabled = true;
      try {
        var res = await fetch("/api/v1/lessons/" + progress.dataset.lessonId + "/progress", {
          method: "PUT",
          headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken },
          credentials: "same-origin",
          body: JSON.stringify({ completed: wanted })
        });
        if (!res.ok) throw new Error(String(res.status));
        showState((await res.json()).completed);
        toggle.focus();
      } catch (err) {
        statusNote.hidden = false;
        statusNote.textContent = "Could not save your progress; try again.";
      } finally {
        toggle.disabled = false;
      }
    });
  }

  // ---- narrow screens: Lesson / Tutor tabs, one pane at a time ----
  var layout = document.querySelector(".lesson-layout");
  var tablist = document.querySelector(".pane-tabs");
  var narrow = window.matchMedia("(max-width: 800px)");
  window.tutorgraphShowPane = function () {};
  if (tablist && layout) {
    var tabs = Array.prototype.slice.call(tablist.querySelectorAll("[role=tab]"));
    var select = function (view, focus) {
      layout.dataset.view = view;
      tabs.forEach(function (tab) {
        var on = tab.id === "tab-" + view;
        tab.setAttribute("aria-selected", on ? "true" : "false");
        tab.tabIndex = on ? 0 : -1;
        if (on && focus) tab.focus();
      });
      if (narrow.matches) tablist.scrollIntoView({ block: "start" });
    };
    tabs.forEach(function (tab, i) {
      tab.addEventListener("click", function () { select(tab.id.replace("tab-", ""), false); });
      tab.addEventListener("keydown", function (e) {
        var step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
        if (!step) return;
        e.preventDefault();
        select(tabs[(i + step + tabs.length) % tabs.length].id.replace("tab-", ""), true);
      });
    });
    tablist.hidden = false;
    layout.classList.add("tabbed");
    // Other scripts (a citation link in the chat) bring a pane to the front through this.
    window.tutorgraphShowPane = function (view) { if (narrow.matches) select(view, false); };
  }

  // ---- resizable split (lesson | chat) ----
  var handle = document.querySelector(".split-handle");
  if (handle && layout) {
    var setWidth = function (pct) {
      pct = Math.max(20, Math.min(75, pct));
      layout.style.setProperty("--lesson-width", pct + "%");
      handle.setAttribute("aria-valuenow", String(Math.round(pct)));
    };
    handle.addEventListener("pointerdown", function (e) {
      e.preventDefault();
      handle.setPointerCapture(e.pointerId);
      var move = function (ev) {
        var box = layout.getBoundingClientRect();
        setWidth(((ev.clientX - box.left) / box.width) * 100);
      };
      var up = function () {
        handle.removeEventListener("pointermove", move);
        handle.removeEventListener("pointerup", up);
      };
      handle.addEventListener("pointermove", move);
      handle.addEventListener("pointerup", up);
    });
    handle.addEventListener("keydown", function (e) {
      var now = Number(handle.getAttribute("aria-valuenow"));
      if (e.key === "ArrowLeft") { setWidth(now - 5); e.preventDefault(); }
      if (e.key === "ArrowRight") { setWidth(now + 5); e.preventDefault(); }
    });
  }
})();
