/**
 * Stored records declared once. A feed record (the spec's MovementRecord, TradeRecord) is kept as columns
 * plus the document the API serves (store/documents.ts); the table's columns, the upsert's update list and
 * the rendering of the document all derive from one declaration that names every field of the record's
 * schema. A field added to the schema is then a compile error until it is declared: stored and served, or
 * said not to be (`column: null`, `served: null`). The declaration's order is the order of the answer's
 * fields, which is what keeps existing documents byte for byte the same.
 */

/** The keys of `T` that it may leave out. */
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];

/**
 * A record as stored: the spec's record without the fields it does not store (`Unstored`), each in the
 * spec's type (enumerations included) except where the store keeps another form (`Forms`: decimal text,
 * JSON text); an optional field is null when the record leaves it out.
 */
export type StoredRow<Rec, Unstored extends keyof Rec, Forms> = {
  [K in Exclude<keyof Rec, Unstored>]-?:
    | (K extends keyof Forms ? Forms[K] : Exclude<Rec[K], undefined>)
    | (K extends OptionalKeys<Rec> ? null : never);
};

/** An answer field served from a stored row: its name in the answer and how its value is read. */
export type ServedAs<Row, Answer> = {
  [F in keyof Answer]-?: { as: F; value: (row: Row) => Answer[F] };
}[keyof Answer];

/**
 * How each field of a record is kept. `fixed`: a column the upsert never changes (the row's key, or what
 * places it in its list: a record that changes it is refused); `updated`: a column a newer record replaces;
 * null: not stored (only a field the row type leaves out). `served`: the answer field it becomes, or null
 * when the API does not serve it (a movement's account: the answer's owner is who asks).
 */
export type FieldsOf<Rec, Row, Answer> = {
  [K in keyof Rec]-?: {
    column: K extends keyof Row ? 'fixed' | 'updated' : null;
    served: ServedAs<Row, Answer> | null;
  };
};

type ServedKeys<D> = { [K in keyof D]: D[K] extends { served: { as: infer F } } ? F : never }[keyof D];
/** Answer fields no record field becomes: a declaration leaving any is refused, naming them. */
type Unserved<D, Answer> = Exclude<keyof Answer, ServedKeys<D>>;
export type EveryAnswerField<D, Answer> = [Unserved<D, Answer>] extends [never]
  ? unknown
  : { 'answer fields no record field becomes': Unserved<D, Answer> };

/** What a declaration gives the store. */
export interface Stored<Rec, Row, Answer> {
  /** Each record field, and what it is kept as. */
  readonly fields: FieldsOf<Rec, Row, Answer>;
  /** Every column of the table, the document's included. */
  readonly columns: readonly ((keyof Row & string) | 'document')[];
  /** The columns the upsert replaces (not the fixed ones), the document's included. */
  readonly updated: readonly ((keyof Row & string) | 'document')[];
  /** The answer the API serves for a stored row. */
  render(row: Row): Answer;
}

/**
 * Declares a stored record: `fields` must name every field of `Rec` (the spec's record schema) and make
 * every field of `Answer` (the API's schema) out of them. Curried, so that the three types are given and
 * the declaration's own type is inferred.
 */
export function storedRecord<Rec, Row, Answer>() {
  return <const D extends FieldsOf<Rec, Row, Answer>>(fields: D & NoInfer<EveryAnswerField<D, Answer>>) => {
    const entries = Object.entries(fields as FieldsOf<Rec, Row, Answer>) as [
      keyof Row & string,
      FieldsOf<Rec, Row, Answer>[keyof Rec],
    ][];
    const stored = entries.filter(([, f]) => f.column !== null).map(([name]) => name);
    const served = entries.flatMap(([, f]) => (f.served === null ? [] : [f.served]));
    return {
      fields,
      columns: [...stored, 'document'],
      updated: [...entries.filter(([, f]) => f.column === 'updated').map(([name]) => name), 'document'],
      render(row: Row): Answer {
        const answer: Partial<Record<keyof Answer, unknown>> = {};
        for (const { as, value } of served) answer[as] = value(row);
        return answer as Answer;
      },
    } satisfies Stored<Rec, Row, Answer>;
  };
}
