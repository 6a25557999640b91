// Column helpers shared by every table file of the schema.
import { bigint, timestamp } from "drizzle-orm/pg-core";

export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
export const money = (name: string) => bigint(name, { mode: "number" });
export const createdAt = () => ts("created_at").notNull().defaultNow();
export const updatedAt = () => ts("updated_at").notNull().defaultNow();
