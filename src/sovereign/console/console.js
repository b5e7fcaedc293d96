// The Console's entry point: which view shows, sign-in, first-run setup,
// sign-out. Loaded as an ES module by index.html; no build step.

import { AboutView } from "./about.js";
import { ApiError, request, session } from "./api.js";
import { Chat } from "./chat.js";
import { applyConsoleWords, say } from "./console-words.js";
import { byId, showOnly } from "./dom.js";
import { showAddressWarning } from "./host.js";
import { ActivityView, PolicySwitch } from "./panels.js";
import { pauseSentence, setupTokenFromHash } from "./present.js";
import { settingsLink } from "./search-settings.js";
import { SettingsView } from "./settings.js";

const MIN_PASSWORD_LENGTH = 8;

const views = {
  loading: byId("loading"),
  setup: byId("setup-view"),
  signin: byId("signin-view"),
  chat: byId("chat-view"),
  activity: byId("activity-view"),
  settings: byId("settings-view"),
  about: byId("about-view"),
};
const SIGNED_IN_VIEWS = ["chat", "activity", "settings", "about"];
const nav = byId("main-nav");
const onUnauthorized = () => sessionEnded();
const chat = new Chat({ onUnauthorized });
const policy = new PolicySwitch({ onUnauthorized });
const activity = new ActivityView({ onUnauthorized });
const about = new AboutView({ onUnauthorized });
// The household's language was saved: the Console's own words follow it, and Settings is
// shown again in them (what its sections wrote at run time, such as "No sites.").
const settings = new SettingsView({
  onUnauthorized,
  onLanguageSaved: async () => {
    await loadWords();
    await settings.load();
  },
});

function show(name) {
  showOnly(views[name], Object.values(views));
  nav.hidden = !SIGNED_IN_VIEWS.includes(name);
  for (const page of SIGNED_IN_VIEWS) {
    byId(`nav-${page}`).setAttribute("aria-current", name === page ? "page" : "false");
  }
}

async function boot() {
  // The browser's language first: the line "Connecting to the appliance…", the address
  // warning and the sign-in pages are said in it (the signed-in page then says the
  // household's). Until the words answer, and when they cannot, the page's English shows.
  await useSignInWords();
  showAddressWarning(location);
  try {
    const state = await request("GET", "/auth/state");
    if (state.signed_in && session.csrfToken) return enterSignedIn(session.csrfToken);
    session.csrfToken = null; // ended meanwhile: sign in again in this tab
    if (state.setup_required) return await showSetup();
    return await showSignIn();
  } catch (error) {
    views.loading.textContent = say("unreachable_at_start", { reason: error.message });
  }
}

let signInWords = null; // the answer of GET /auth/words, asked once per page

/**
 * Say the sign-in and setup pages in the browser's language (GET /auth/words: from its
 * Accept-Language, never the household's setting, which is not read before a session).
 * On failure they stay as they are (English), and the next showing asks again.
 */
async function useSignInWords() {
  if (!signInWords) signInWords = request("GET", "/auth/words").catch(() => null);
  const answer = await signInWords;
  if (!answer) signInWords = null; // ask again next time
  applyConsoleWords(document, answer && answer.console, answer && answer.language,
    answer && answer.run_time);
}

async function showSetup() {
  await useSignInWords();
  const token = setupTokenFromHash(location.hash);
  byId("setup-missing-token").hidden = Boolean(token);
  byId("setup-form").hidden = !token;
  show("setup");
  if (token) byId("setup-password").focus();
}

/**
 * The sign-in view, in the browser's language, with `error` as an alert or `status` as a
 * plain notice: each a sentence, or the key of one of the Console's own (said once the
 * page's words are in that language).
 */
async function showSignIn({ error = "", status = "", said = {} } = {}) {
  await useSignInWords();
  byId("signin-error").textContent = said.error ? say(said.error) : error;
  byId("signin-status").textContent = said.status ? say(said.status) : status;
  byId("signin-password").value = "";
  show("signin");
  byId("signin-password").focus();
}

/** Keep what a sign-in or setup answer gave this tab and this browser, then open the chat. */
async function signedIn(answer) {
  if (answer.device_key) session.deviceKey = answer.device_key;
  await enterSignedIn(answer.csrf_token);
}

async function enterSignedIn(csrfToken) {
  session.csrfToken = csrfToken;
  show("chat");
  byId("composer-input").focus();
  loadWords();
  await policy.load();
}

/**
 * Ask the service for the words the Console shows in the household's language: the
 * progress line's first words and the Console's own (console-words.js). Called at
 * sign-in and when the household's language is saved; on failure the words stay.
 */
async function loadWords() {
  let answer;
  try {
    answer = await request("GET", "/conversation/words");
  } catch {
    return; // the words stay as they were (English unless said before)
  }
  chat.progress.useWords(answer);
  applyConsoleWords(document, answer && answer.console, answer && answer.language,
    answer && answer.run_time);
}

async function submitSetup(event) {
  event.preventDefault();
  const password = byId("setup-password").value;
  const error = byId("setup-error");
  if (password.length < MIN_PASSWORD_LENGTH) {
    error.textContent = say("password_too_short", { count: MIN_PASSWORD_LENGTH });
    return;
  }
  if (password !== byId("setup-password-again").value) {
    error.textContent = say("passwords_differ");
    return;
  }
  await submitting(event.target, error, async () => {
    const body = { setup_token: setupTokenFromHash(location.hash), password };
    const answer = await request("POST", "/auth/setup", body);
    history.replaceState(null, "", location.pathname + location.search);
    byId("setup-form").reset();
    await signedIn(answer);
  });
}

async function submitSignIn(event) {
  event.preventDefault();
  const password = byId("signin-password").value;
  const error = byId("signin-error");
  byId("signin-status").textContent = "";
  if (!password) {
    error.textContent = say("enter_password");
    return;
  }
  await submitting(event.target, error, async () => {
    const body = { password };
    if (session.deviceKey) body.device_key = session.deviceKey;
    const answer = await request("POST", "/auth/login", body);
    byId("signin-password").value = "";
    await signedIn(answer);
  });
}

async function submitting(form, errorElement, action) {
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  errorElement.textContent = "";
  try {
    await action();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === "ALREADY_SET_UP") showSignIn({ error: error.message });
    else errorElement.textContent = pauseSentence(error.message, error.retryAfterSeconds);
  } finally {
    button.disabled = false;
  }
}

/** Sign out: end the session on the service, then forget everything on the page. */
async function signOut() {
  try {
    await request("POST", "/auth/logout");
  } catch {
    // Signed out here regardless; the session cookie expires on the service.
  }
  forgetEverything();
  await showSignIn({ said: { status: "signed_out" } });
}

function forgetEverything() {
  applyConsoleWords(document, {}, "en");
  chat.progress.useWords(null);
  chat.clear();
  policy.reset();
  activity.clear();
  settings.clear();
  about.clear();
  session.csrfToken = null;
}

function sessionEnded() {
  session.csrfToken = null;
  chat.abandonPending();
  showSignIn({ said: { error: "session_ended" } });
}

byId("setup-form").addEventListener("submit", submitSetup);
byId("signin-form").addEventListener("submit", submitSignIn);
byId("sign-out").addEventListener("click", signOut);
byId("nav-chat").addEventListener("click", () => {
  show("chat");
  byId("composer-input").focus();
});
byId("nav-activity").addEventListener("click", () => {
  show("activity");
  activity.load();
});
byId("nav-settings").addEventListener("click", () => {
  show("settings");
  settings.load();
});
byId("nav-about").addEventListener("click", () => {
  show("about");
  about.load();
});
// A card's "Change" opens Settings at that section, one tap from the card.
settingsLink.open = (sectionId) => {
  show("settings");
  settings.load();
  const section = byId(sectionId);
  section.scrollIntoView({ block: "start" });
  const first = section.querySelector("select, input, button");
  if (first) first.focus();
};
// The first-run link pasted into a tab that already shows the Console: act on it.
window.addEventListener("hashchange", () => {
  if (setupTokenFromHash(location.hash)) boot();
});
boot();
