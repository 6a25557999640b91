#!/usr/bin/env node
// The `feira` command: runs the TypeScript CLI through tsx, as `npm start` runs the server.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
await main();
