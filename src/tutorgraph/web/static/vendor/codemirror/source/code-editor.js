/* tutorgraph's code editor: upgrades <textarea data-code-editor="python|sql|javascript"> into a
   CodeMirror 6 editor (line numbers, syntax highlighting, Tab indents; Esc then Tab leaves).
   The textarea stays the form field: it is kept in step with the editor on every change and on
   submit, and a script or test that sets or fills the textarea updates the editor. The editor
   takes the textarea's label and description; the textarea is hidden from assistive technology.
   Highlighting is by CSS classes (tok-*), styled in the app's stylesheet. */
import { EditorState, Compartment } from "@codemirror/state";
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
  highlightSpecialChars, drawSelection,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { syntaxHighlighting, indentOnInput, bracketMatching, indentUnit } from "@codemirror/language";
import { classHighlighter } from "@lezer/highlight";
import { python } from "@codemirror/lang-python";
import { sql } from "@codemirror/lang-sql";
import { javascript } from "@codemirror/lang-javascript";

const LANGUAGES = { python: () => python(), sql: () => sql(), javascript: () => javascript() };
const VALUE = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value");
let counter = 0;

function labelOf(textarea) {
  if (!textarea.id) return null;
  return document.querySelector('label[for="' + CSS.escape(textarea.id) + '"]');
}

export function upgrade(textarea) {
  if (!(textarea instanceof HTMLTextAreaElement) || textarea.codeEditor) return textarea.codeEditor || null;
  const language = LANGUAGES[textarea.dataset.codeEditor];
  const editable = new Compartment();
  const label = labelOf(textarea);
  const content = { autocapitalize: "off", autocorrect: "off", spellcheck: "false", "aria-multiline": "true" };
  if (label) {
    if (!label.id) label.id = "code-editor-label-" + ++counter;
    content["aria-labelledby"] = label.id;
    // The label now names the editor (a label's `for` can only point at a form field).
    label.removeAttribute("for");
    label.addEventListener("click", () => view.focus());
  } else if (textarea.getAttribute("aria-label")) {
    content["aria-label"] = textarea.getAttribute("aria-label");
  }
  const described = textarea.getAttribute("aria-describedby");
  if (described) content["aria-describedby"] = described;
  const max = textarea.maxLength > 0 ? textarea.maxLength : null;

  function editableState() {
    const off = textarea.disabled || textarea.readOnly;
    return [EditorView.editable.of(!textarea.disabled), EditorState.readOnly.of(off)];
  }
  let syncing = false;
  const extensions = [
    lineNumbers(), highlightActiveLineGutter(), highlightSpecialChars(), history(), drawSelection(),
    indentOnInput(), bracketMatching(), highlightActiveLine(),
    syntaxHighlighting(classHighlighter),
    indentUnit.of("    "), EditorState.tabSize.of(4),
    keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
    EditorView.contentAttributes.of(content),
    editable.of(editableState()),
    EditorView.updateListener.of((update) => {
      if (!update.docChanged || syncing) return;
      VALUE.set.call(textarea, update.state.doc.toString());
      textarea.dispatchEvent(new Event("input", { bubbles: true }));
    }),
  ];
  if (max !== null) extensions.push(EditorState.changeFilter.of((tr) => tr.newDoc.length <= max));
  if (language) extensions.push(language());

  const wrapper = document.createElement("div");
  wrapper.className = "code-editor";
  wrapper.style.setProperty("--code-rows", String(textarea.rows || 8));
  textarea.insertAdjacentElement("afterend", wrapper);
  const view = new EditorView({
    parent: wrapper,
    state: EditorState.create({ doc: VALUE.get.call(textarea), extensions }),
  });

  function fromTextarea() {
    const text = VALUE.get.call(textarea);
    if (text === view.state.doc.toString()) return;
    syncing = true;
    try { view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }); }
    finally { syncing = false; }
  }
  // A script that sets textarea.value updates the editor too.
  Object.defineProperty(textarea, "value", {
    configurable: true,
    get() { return VALUE.get.call(this); },
    set(text) { VALUE.set.call(this, text); fromTextarea(); },
  });
  textarea.addEventListener("input", fromTextarea);
  textarea.addEventListener("invalid", () => view.focus());
  if (textarea.form) {
    // On submit the field holds exactly what the editor shows.
    textarea.form.addEventListener("submit", () => VALUE.set.call(textarea, view.state.doc.toString()), true);
    textarea.form.addEventListener("reset", () => setTimeout(fromTextarea, 0));
  }
  new MutationObserver(() => {
    view.dispatch({ effects: editable.reconfigure(editableState()) });
  }).observe(textarea, { attributes: true, attributeFilter: ["disabled", "readonly"] });

  textarea.classList.add("code-editor-source");
  textarea.setAttribute("aria-hidden", "true");
  textarea.tabIndex = -1;
  textarea.codeEditor = view;
  textarea.setAttribute("data-code-editor-ready", "");
  return view;
}

export function upgradeAll(root) {
  (root || document).querySelectorAll("textarea[data-code-editor]").forEach((t) => upgrade(t));
}

window.tutorgraphCodeEditor = { upgrade, upgradeAll };
upgradeAll(document);
