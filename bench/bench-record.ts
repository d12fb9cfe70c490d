/** One measurement of `npm run bench` (bench/results.json): name, size, value, unit, and a side-by-side baseline. */
export interface BenchRecord {
  name: string;
  /** Items measured (files, deliveries...) or a short description of the input. */
  size: number | string;
  value: number;
  unit: string;
  baseline?: number;
  ratio?: number;
  note?: string;
}
