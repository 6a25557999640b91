// The disputes module's public face for other modules: the wire schema of a dispute, which a
// charge's own view embeds. Everything else in this folder is the module's own.
export { Dispute } from "./disputes.schemas.js";
