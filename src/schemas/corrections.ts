/** A value of a snapshot's field as the diff compares it: a rate, a fee, a name, or none. */
export type Value = number | string | null;

/** A known wrong value, as a dataset's table entry declares it (src/datasets.ts, `corrections`). */
export interface HistoryCorrection {
  /** The institution or issuer id (`issuer:amex`). */
  entityId: string;
  /** The product or plan id (`plan:amex:platinum-charge-card`); absent for a field of the institution or issuer itself. */
  itemId?: string;
  /**
   * A plan's field (`annualFeeNZD`), the id of the rate whose `rate` is wrong (items with rates),
   * or without itemId a field of the institution or issuer (`name`).
   */
  field: string;
  /** The value the history holds; a file with any other value there is left alone. */
  wrong: Value;
  right: Value;
  /** Why the right value is right, in one line. */
  evidence: string;
}
