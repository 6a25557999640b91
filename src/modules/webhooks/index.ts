// The webhooks module's public face for other modules: what they may import from it.
// Everything else in this folder is the module's own (its module file is public too).
export type { EventType } from "./catalog.js";
export { checkBrowserDestination, checkDestination } from "./destination.js";
export { recordEvent, recordEvents } from "./outbox.js";
export type { ReactedEvent, Reactions, Subscriber } from "./reactions.js";
