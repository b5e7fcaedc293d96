// The progress line under the conversation while a turn runs: what the turn is doing
// now, in household words, with the seconds since the question (issue: no silent
// waits). Each progress event carries its words as the product said them in the turn's
// language (`words`, with the Stop button's `stop` and the line's `stopping`); the
// line's first words, before the service said anything of the turn, are the household's
// (GET /conversation/words: said in the household's language, ProgressLine.useWords);
// the English here is for a service that says none. Pure functions (no DOM) for the words; ProgressLine puts them on the page.

import { el } from "./dom.js";
import { FoundPassages } from "./found.js";
import { saidText as said } from "./present.js";

/** The words for each stage a turn reports (conversation/progress.py). */
const STAGE_WORDS = {
  sending: "Sending your question",
  queued: "Waiting for another question to finish",
  loading_model: "Loading the model (the first question after a start takes longer)",
  choosing: "Reading your question and choosing what to check",
  writing: "Writing the answer",
  stopping: "Stopping",
};

/** The Stop button's label before the service said one. */
const STOP = "Stop";

/** What "checking <capability>" says, by the capability's family (its name's first part). */
const CHECK_WORDS = {
  system: "Checking the device's health",
  pihole: "Checking the ad blocker",
  home_assistant: "Checking your home's devices",
  web: "Working on the web request you approved",
};
const CHECK_EXACT = {
  "web.search": "Searching the web",
  "web.fetch": "Reading the page",
};

/**
 * The words for a progress event: its `words` as the product said them, else in English:
 * "Searching the web" for {stage: "checking", capability: "web.search"}, and so on.
 */
export function stageWords(progress) {
  const { stage, capability } = progress || {};
  if (said(progress && progress.words)) return progress.words;
  if (stage === "checking") {
    const family = String(capability || "").split(".")[0];
    return CHECK_EXACT[capability] || CHECK_WORDS[family] || "Checking what you asked about";
  }
  return STAGE_WORDS[stage] || STAGE_WORDS.sending;
}

/** `value` of `unit` ("second", "minute") in `language`, by the browser's CLDR data. */
function unitWords(value, unit, display, language) {
  const options = { style: "unit", unit, unitDisplay: display };
  try {
    return new Intl.NumberFormat(language, options).format(value);
  } catch {
    return new Intl.NumberFormat("en", options).format(value);  // not a language tag
  }
}

/**
 * The time waited for a whole number of seconds (never negative) in the turn's language:
 * "1 second", "12 seconds", "2 min, 5 sec" in English; "12 Sekunden" in German.
 */
export function elapsedWords(seconds, language = "en") {
  const whole = Math.max(0, Math.floor(seconds));
  if (whole < 60) return unitWords(whole, "second", "long", language);
  const minutes = unitWords(Math.floor(whole / 60), "minute", "short", language);
  return `${minutes} ${unitWords(whole % 60, "second", "short", language)}`;
}

/**
 * The line itself, bound to #thinking: start() when a question goes, show(progress)
 * for each progress event, stop() when the turn ends. onStop() is called when the
 * household presses Stop (the button is offered once the service named the turn).
 */
export class ProgressLine {
  constructor(element, { onStop, now = () => performance.now() }) {
    this.element = element;
    this.now = now;
    this.words = el("span", { className: "progress-words" });
    this.elapsed = el("span", { className: "progress-elapsed", "aria-hidden": "true" });
    this.stopButton = el("button", { type: "button", className: "stop-button", hidden: true },
      STOP);
    this.stopButton.addEventListener("click", () => {
      this.stopButton.disabled = true;
      this.show({ stage: "stopping", words: this.stoppingWords });
      onStop();
    });
    element.replaceChildren(el("span", { className: "dots", "aria-hidden": "true" }),
      el("span", { className: "progress-text" }, this.words, " ", this.elapsed),
      this.stopButton);
    this.found = new FoundPassages();  // what a web result held, while the assistant reads it
    element.append(this.found.element);
  }

  /**
   * The words for the moment before the service said anything of a turn, as the service
   * said them in the household's language (GET /conversation/words: {language, words:
   * {sending, stop, stopping}}); what is not said, or not text, stays English.
   */
  useWords(answer) {
    const words = (answer && typeof answer.words === "object" && answer.words) || {};
    const language = answer && answer.language;
    this.before = {
      language: said(language) && /^[a-z]{2,3}$/.test(language) ? language : "en",
      sending: said(words.sending) ? words.sending : null,
      stop: said(words.stop) ? words.stop : STOP,
      stopping: said(words.stopping) ? words.stopping : null,
    };
    // Words that arrive while the line still waits for the service's first word: use them.
    if (this.timer && this.stage === "sending" && !this.stopButton.disabled) this.sending();
  }

  /** The line's first words, before the service said anything (English until said). */
  sending() {
    const before = this.before || { language: "en", sending: null, stop: STOP, stopping: null };
    this.stopButton.textContent = before.stop;
    this.stoppingWords = before.stopping;
    this.language = before.language;
    this.element.lang = before.language;
    this.show({ stage: "sending", words: before.sending });
    this.tick();
  }

  start() {
    this.began = this.now();
    this.stopButton.hidden = true;
    this.stopButton.disabled = false;
    this.found.reset();
    this.sending();
    clearInterval(this.timer);
    this.timer = setInterval(() => this.tick(), 1000);
    this.tick();
  }

  /** The service named the turn: it can be stopped from now on. */
  stoppable() {
    this.stopButton.hidden = false;
  }

  /** One progress event: its words, and the Stop button and its note as the product said them. */
  show(progress) {
    if (this.stopButton.disabled && progress.stage !== "stopping") return;
    this.stage = progress.stage;
    this.words.textContent = `${stageWords(progress)}…`;
    this.found.show(progress.found);
    if (said(progress.stop)) this.stopButton.textContent = progress.stop;
    if (said(progress.stopping)) this.stoppingWords = progress.stopping;
    if (said(progress.language)) {
      this.language = progress.language;
      this.element.lang = progress.language;
      this.tick();
    }
  }

  tick() {
    const seconds = (this.now() - this.began) / 1000;
    this.elapsed.textContent = `· ${elapsedWords(seconds, this.language)}`;
  }

  /** The answer arrived: what was found gives way to it. */
  answered() {
    this.found.answered();
  }

  stop() {
    this.found.answered();
    clearInterval(this.timer);
    this.timer = null;
    this.stopButton.hidden = true;
  }
}
