/**
 * What the browser accepts from the runtime, in one place.
 *
 * The numbers follow the runtime's limits: a graph document may be 64 MiB, so
 * anything that carries one (the workflow, a transaction reply) gets that plus
 * room for its envelope, and so do the activity page and one feed event (the
 * runtime holds up to 64 MiB of events; one may carry a 16 MiB transaction's
 * operations); every other JSON reply is held to the 16 MiB general request
 * bound. A reply over its bound is refused before it
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

/** Catalog query length, as the runtime bounds it. */
export const MAX_QUERY_CHARS = 120;

/** Workflow title length the runtime accepts. */
export const MAX_TITLE_CHARS = 200;

/** Characters in one sticky note. */
export const MAX_NOTE_CHARS = 20_000;

/** An exported zip: the package plus its evidence (at most 64 MiB of receipts). */
export const MAX_EXPORT_BYTES = 256 * MiB;

/** How long one run-status long-poll asks the runtime to wait (it caps at 25 s). */
export const RUN_WAIT_MS = 20_000;
/** The client-side timeout for that long-poll: the wait plus room to answer. */
export const RUN_POLL_TIMEOUT_MS = RUN_WAIT_MS + 10_000;

/** Compile and export freeze the graph and may run `pixi lock`: slower than an edit. */
export const PACKAGE_TIMEOUT_MS = 180_000;

/** A prompt the runtime accepts, in UTF-8 bytes. */
export const MAX_PROMPT_BYTES = 256 * 1024;

/** A custom agent command: tokens, and bytes per token (somite-acp's limits). */
export const MAX_ARGV_TOKENS = 64;
export const MAX_ARGV_TOKEN_BYTES = 4 * 1024;

/** Entries the agent feed keeps on screen; older ones are dropped first. */
export const MAX_AGENT_FEED_ENTRIES = 2000;
/** Characters of one merged message kept (a runaway stream stays bounded). */
export const MAX_AGENT_TEXT_CHARS = 200_000;
