// The Connect module's public face for other modules: what they may import from it.
// Everything else in this folder is the module's own (its module file is public too).
export type { ConnectService } from "./connect.service.js";
export type { SplitAccounts } from "./provider-split.js";
export type { Settlement } from "./settlement.js";
