// The Console's only door to the service: JSON requests with the CSRF header,
// and the streamed conversation answer (server-sent events over a POST).
//
// The header carries this tab's secret, which only a sign-in or setup answer holds:
// the page keeps it in sessionStorage (this tab, this origin: another port of the
// same name cannot read it), so the cookies alone, wherever a browser sends them,
// act on nothing. This browser's device key (its own sign-in budget, with the
// device cookie) is kept in localStorage. See docs/decisions/cookie-is-not-a-session.md.

import { say } from "./console-words.js";
import { describeFailure } from "./present.js";
import { SseParser } from "./sse.js";

const API = "/api/v1";

/**
 * A failed request: HTTP status (0 when unreachable), the service's code and sentence.
 * A conversation turn that failed after it began also carries what it did:
 * `receipts` and `citations` (arrays, empty when the body had none), and `receipt`,
 * the receipts as the product said them in the turn's language (null when none).
 */
export class ApiError extends Error {
  constructor(status, code, message, body = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.receipts = listOf(body, "receipts");
    this.citations = listOf(body, "citations");
    this.receipt = body && body.receipt && typeof body.receipt === "object" ? body.receipt : null;
    /** What the service added to its sentence as it is (a refused edit's own reason). */
    this.detail = body && typeof body.detail === "string" ? body.detail : "";
    /** The failed turn's language (ISO 639-1), when the service said it. */
    this.language = body && typeof body.language === "string" ? body.language : null;
    /** Seconds sign-in is paused for (0 when it is not), from `retry_after_seconds`. */
    this.retryAfterSeconds = Number(body && body.retry_after_seconds) || 0;
  }
}

function listOf(body, key) {
  return body && Array.isArray(body[key]) ? body[key] : [];
}

const TAB_SECRET = "sovereign.tab";
const DEVICE_KEY = "sovereign.device";
const memory = new Map();

/** sessionStorage or localStorage, or this page's memory where the browser refuses it. */
function stored(storage) {
  return {
    get(key) {
      try {
        return storage().getItem(key);
      } catch {
        return memory.get(key) ?? null;
      }
    },
    set(key, value) {
      try {
        if (value) storage().setItem(key, value);
        else storage().removeItem(key);
      } catch {
        if (value) memory.set(key, value);
        else memory.delete(key);
      }
    },
  };
}

const tabStorage = stored(() => window.sessionStorage);
const browserStorage = stored(() => window.localStorage);

/**
 * This tab's secret (sent as X-CSRF-Token), kept across reloads of the tab; set it
 * to null at sign-out. `deviceKey`: this browser's half of its own sign-in budget.
 */
export const session = {
  get csrfToken() {
    return tabStorage.get(TAB_SECRET);
  },
  set csrfToken(value) {
    tabStorage.set(TAB_SECRET, value);
  },
  get deviceKey() {
    return browserStorage.get(DEVICE_KEY);
  },
  set deviceKey(value) {
    browserStorage.set(DEVICE_KEY, value);
  },
};

function headers(extra) {
  const result = { Accept: "application/json", ...extra };
  if (session.csrfToken) result["X-CSRF-Token"] = session.csrfToken;
  return result;
}

async function failure(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  const code = (body && body.error && body.error.code) || `HTTP_${response.status}`;
  return new ApiError(response.status, code, describeFailure(response.status, body), body);
}

async function send(path, init) {
  try {
    return await fetch(API + path, { credentials: "same-origin", ...init });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new ApiError(0, "UNREACHABLE", describeFailure(0, null));
  }
}

/**
 * One JSON request. Returns the parsed body (null for 204).
 * Throws ApiError for any non-2xx answer or an unreachable service.
 */
export async function request(method, path, body) {
  const init = { method, headers: headers() };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await send(path, init);
  if (!response.ok) throw await failure(response);
  return response.status === 204 ? null : response.json();
}

/**
 * Load a settings section: GET `path` into `section.show(state)`, after clearing
 * `section.error`. A 401 goes to `section.onUnauthorized(error)` (its result returned);
 * any other failure is written to `section.error` as the Console's sentence `unread`
 * ("The <setting> could not be read: {reason}", console-words.js).
 */
export async function loadSection(section, path, unread) {
  section.error.textContent = "";
  try {
    section.show(await request("GET", path));
  } catch (error) {
    if (error.status === 401) return section.onUnauthorized(error);
    section.error.textContent = say(unread, { reason: error.message });
  }
}

/**
 * POST a conversation request and stream the answer.
 *
 * payload: {message, history} or {confirmation: {token, approve, reason?}}.
 * handlers: {onToken(text), onProgress({stage, capability}), onTurn(id)}, each
 * optional (a bare function is onToken): each streamed piece of answer text, each
 * stage the turn reports, and the turn's id (what stopTurn takes).
 * signal: an AbortSignal (sign-out cancels the stream).
 * Resolves with the final response object ({text, pending_confirmation,
 * citations, receipts, facts, receipt}); rejects with ApiError (an `event: error` frame
 * or a non-2xx answer), whose receipts, receipt and citations say what a failed turn
 * did. A service that answers plain JSON instead of a stream is accepted as well.
 */
export async function converse(payload, handlers, signal) {
  const on = typeof handlers === "function" ? { onToken: handlers } : handlers || {};
  const response = await send("/conversation/message", {
    method: "POST",
    headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
    body: JSON.stringify(payload),
    signal,
  });
  if (!response.ok) throw await failure(response);
  const type = response.headers.get("Content-Type") || "";
  if (!type.startsWith("text/event-stream")) return response.json();
  return readStream(response.body, on);
}

/**
 * Ask the service to stop the streamed turn `turnId` (POST /conversation/stop).
 * Resolves true when it is stopping, false when it had already finished.
 */
export async function stopTurn(turnId) {
  try {
    await request("POST", "/conversation/stop", { turn: turnId });
    return true;
  } catch (error) {
    if (error.code === "TURN_NOT_RUNNING") return false;
    throw error;
  }
}

async function readStream(body, on) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  for (;;) {
    const { value, done } = await reader.read();
    const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
    for (const frame of parser.feed(done ? `${text}\n\n` : text)) {
      const result = handleFrame(frame, on);
      if (result) {
        reader.cancel().catch(() => {});
        return result;
      }
    }
    if (done) throw new ApiError(0, "STREAM_ENDED", say("stream_ended"));
  }
}

function handleFrame(frame, on) {
  let data;
  try {
    data = JSON.parse(frame.data);
  } catch {
    throw new ApiError(0, "GARBLED_STREAM", say("stream_garbled"));
  }
  if (frame.event === "token") {
    if (on.onToken) on.onToken(data.text || "");
    return null;
  }
  if (frame.event === "progress") {
    if (on.onProgress) on.onProgress(data);
    return null;
  }
  if (frame.event === "turn") {
    if (on.onTurn) on.onTurn(String(data.id || ""));
    return null;
  }
  if (frame.event === "result") return data;
  if (frame.event === "error") {
    const error = data.error || {};
    throw new ApiError(200, error.code || "ERROR", error.message || describeFailure(500, null),
      data);
  }
  return null;
}
