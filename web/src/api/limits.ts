/**
 * What the browser accepts from the runtime, in one place.
 *
 * The numbers follow DESIGN.md "Limits": a graph document may be 64 MiB, so
 * anything that carries one (the workflow, a transaction reply, a feed event)
 * gets that plus room for its envelope; every other JSON reply is held to the
 * 16 MiB general request bound. A reply over its bound is refused before it
 * is parsed, so a broken or hostile server cannot exhaust the tab's memory.
 */
const MiB = 1024 * 1024;

export const MAX_DOCUMENT_REPLY_BYTES = 65 * MiB;
export const MAX_REPLY_BYTES = 16 * MiB;
export const MAX_FEED_EVENT_BYTES = 65 * MiB;

/** Operations the runtime accepts in one transaction. */
export const MAX_TRANSACTION_OPERATIONS = 64;

/** A request that has not answered by then is abandoned and reported. */
export const REQUEST_TIMEOUT_MS = 20_000;

/** Catalog query length, per DESIGN.md "Catalog search". */
export const MAX_QUERY_CHARS = 120;

/** Workflow title length the runtime accepts. */
export const MAX_TITLE_CHARS = 200;

/** Characters in one sticky note. */
export const MAX_NOTE_CHARS = 20_000;
