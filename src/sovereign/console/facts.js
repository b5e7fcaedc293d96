// The figures a household capability returned (system health, Pi-hole totals,
// Home Assistant states), shown under the answer as they came back, so the
// household sees the real numbers whatever the prose says. Built from each
// fact's `result` (the wire's `facts: [{capability, result}]`); every value is
// shown as text, never parsed as markup.

import { el } from "./dom.js";

const COUNT = new Intl.NumberFormat("en", { maximumFractionDigits: 2 });
const PERIODS = {
  last_24_hours: "last 24 hours",
  last_7_days: "last 7 days",
  last_30_days: "last 30 days",
};
/** Most Home Assistant entities listed in one panel. */
const MAX_ENTITIES = 20;

const isNumber = (value) => typeof value === "number" && Number.isFinite(value);
const number = (value) => (isNumber(value) ? COUNT.format(value) : "unknown");
const has = (result, ...keys) => keys.every((key) => result[key] !== undefined && result[key] !== null);

function health(r) {
  const rows = [];
  rows.push(["CPU temperature", isNumber(r.cpu_temperature_celsius)
    ? `${number(r.cpu_temperature_celsius)} °C` : "unknown (no sensor)"]);
  if (has(r, "load_average_1m", "load_average_5m", "load_average_15m")) {
    const cpus = isNumber(r.cpu_count) ? ` on ${r.cpu_count} CPU${r.cpu_count === 1 ? "" : "s"}` : "";
    rows.push(["Load (1 / 5 / 15 min)", `${number(r.load_average_1m)} / ${number(r.load_average_5m)}`
      + ` / ${number(r.load_average_15m)}${cpus}`]);
  }
  for (const [label, key] of [["Memory", "memory"], ["Disk", "disk"], ["Data disk", "data_disk"]]) {
    if (has(r, `${key}_used_gb`, `${key}_total_gb`, `${key}_used_percent`)) {
      rows.push([label, `${number(r[`${key}_used_gb`])} of ${number(r[`${key}_total_gb`])} GB used`
        + ` (${number(r[`${key}_used_percent`])} %)`]);
    }
  }
  if (has(r, "uptime_hours")) rows.push(["Running for", `${number(r.uptime_hours)} hours`]);
  return { title: "Device health", rows };
}

function pihole(r) {
  const rows = [
    ["Queries", number(r.queries_total)],
    ["Blocked", `${number(r.queries_blocked)} (${number(r.percent_blocked)} %)`],
  ];
  if (isNumber(r.domains_on_blocklist)) rows.push(["Domains on the blocklist", number(r.domains_on_blocklist)]);
  if (r.blocking_status) rows.push(["Blocking", String(r.blocking_status)]);
  const period = PERIODS[r.period] || String(r.period || "");
  return { title: period ? `Pi-hole, ${period}` : "Pi-hole", rows };
}

function entityRow(entity) {
  const name = entity.friendly_name || entity.entity_id;
  const unit = entity.unit_of_measurement ? ` ${entity.unit_of_measurement}` : "";
  const state = entity.state === null || entity.state === undefined ? "unknown" : String(entity.state);
  return [`${name} (${entity.entity_id})`, `${state}${unit}`];
}

function haState(r) {
  const entity = r.entity || {};
  const rows = [entityRow(entity)];
  if (entity.last_changed) rows.push(["Last changed", String(entity.last_changed)]);
  return { title: "Home Assistant", rows };
}

function haList(r) {
  const entities = Array.isArray(r.entities) ? r.entities : [];
  const rows = entities.slice(0, MAX_ENTITIES).map(entityRow);
  if (entities.length > MAX_ENTITIES) rows.push(["…", `${entities.length - MAX_ENTITIES} more`]);
  const missing = Array.isArray(r.missing_entity_ids) ? r.missing_entity_ids : [];
  if (missing.length) rows.push(["Not reported", missing.join(", ")]);
  if (!rows.length) rows.push(["Entities", "none of the allowed entities were reported"]);
  return { title: "Home Assistant", rows };
}

function generic(capability, r) {
  const rows = Object.entries(r)
    .filter(([key, value]) => key !== "retrieved_at" && ["string", "number", "boolean"].includes(typeof value))
    .map(([key, value]) => [key.replaceAll("_", " "), isNumber(value) ? number(value) : String(value)]);
  return { title: capability, rows };
}

const READERS = {
  "system.health": health,
  "pihole.summary": pihole,
  "home_assistant.get_state": haState,
  "home_assistant.list_entities": haList,
};

/**
 * factRows({capability, result}) -> {title, rows: [[label, value], …]} or null.
 * Pure: the labels and values to show for one fact, all strings.
 */
export function factRows(fact) {
  if (!fact || typeof fact.capability !== "string" || !fact.result || typeof fact.result !== "object") {
    return null;
  }
  const reader = READERS[fact.capability];
  const shown = reader ? reader(fact.result) : generic(fact.capability, fact.result);
  return shown.rows.length ? shown : null;
}

/** The panel for a turn's facts (a <section>), or null when there is nothing to show. */
export function factPanel(facts) {
  const blocks = (Array.isArray(facts) ? facts : []).map(factRows).filter(Boolean);
  if (!blocks.length) return null;
  const section = el("section", { className: "facts", "aria-label": "What the device reported" },
    el("h4", {}, "What the device reported"));
  for (const { title, rows } of blocks) {
    const list = el("dl", { className: "fact-rows" });
    for (const [label, value] of rows) list.append(el("dt", {}, label), el("dd", {}, value));
    section.append(el("div", { className: "fact" }, el("p", { className: "fact-title" }, title), list));
  }
  return section;
}
