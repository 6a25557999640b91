// The page-numbered lists of Connect: page from 1, size 1 to 100 (default 10), the
// envelope {data, page, pages, total, size}, and date filters that match one UTC day.

const DAY_MS = 24 * 60 * 60 * 1000;

export function dayRange(date: string): { start: Date; end: Date } {
  const start = new Date(`${date}T00:00:00.000Z`);
  return { start, end: new Date(start.getTime() + DAY_MS) };
}

export function pageWindow(q: { page?: number; size?: number }) {
  const page = q.page ?? 1;
  const size = q.size ?? 10;
  return { page, size, limit: size, offset: (page - 1) * size };
}

export function envelope<T>(data: T[], total: number, w: { page: number; size: number }) {
  return { data, page: w.page, pages: Math.ceil(total / w.size), total, size: w.size };
}
