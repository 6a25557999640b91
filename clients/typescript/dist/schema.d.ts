export * from "../src/schema.js";
