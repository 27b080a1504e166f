/**
 * The types of the handler map and of the operation metadata, written by hand: they are the same for every
 * spec, so they live here, typechecked and linted, while the generator emits only the data they describe
 * (`operationMeta` and the `OperationId` union in operations.ts). check-generated leaves this file alone.
 */
import type { OperationId, operationMeta } from './operations.js';
import type { operations } from './schema.js';

/** What the router, the security layer and the client need to know of an operation. */
export interface OperationMeta {
  readonly method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'OPTIONS' | 'HEAD' | 'PATCH' | 'TRACE';
  /** OpenAPI path template, e.g. `/v1/platforms/{id}`. */
  readonly path: string;
  /** Names of the security schemes that protect it; empty when it is public. */
  readonly security: readonly string[];
  readonly deprecated: boolean;
  /** operationId of the operation that replaces a deprecated one (`x-successor`). */
  readonly successor: OperationId | null;
  /** When it was deprecated (`x-deprecated-at`, ISO 8601). */
  readonly deprecatedAt: string | null;
  /** Content types of the request body it accepts. */
  readonly bodyContentTypes: readonly string[];
  /** Content types of its success responses. */
  readonly responseContentTypes: readonly string[];
  /** Query parameters that have a default in the spec (present in every validated request). */
  readonly queryDefaults: readonly string[];
  /** Query parameters whose schema is an integer (checked as written: decimal digits). */
  readonly integerQueryParameters: readonly string[];
  /** Parameters still accepted but `deprecated` in the spec: the requests that send one are counted. */
  readonly deprecatedParameters: readonly { readonly in: 'query' | 'header'; readonly name: string }[];
  /** Its answers carry `Cache-Control: no-store` (it is protected, or its responses document the header). */
  readonly noStore: boolean;
  /** Limited per client address (`x-rate-limited`). */
  readonly rateLimited: boolean;
  /** Its refusals are counted by reason (`x-refusals-counted`). */
  readonly refusalsCounted: boolean;
  /** Its answer comes from the catalogue in memory: it carries `Catalogue-Age` while the database is away. */
  readonly servedFromCatalogue: boolean;
  /** A cursor page's most bytes (`x-page-bytes` of its answer's page_info); null for other answers. */
  readonly pageBytes: number | null;
}

type ParametersIn<Op extends OperationId, Where extends 'path' | 'query' | 'header'> =
  operations[Op]['parameters'] extends Partial<Record<Where, infer V>>
    ? [NonNullable<V>] extends [never]
      ? Record<string, never>
      : NonNullable<V>
    : Record<string, never>;

type QueryDefaults<Op extends OperationId> = (typeof operationMeta)[Op]['queryDefaults'][number];

/** The validated query: parameters with a default in the spec are always present. */
type ValidatedQuery<Op extends OperationId> = ParametersIn<Op, 'query'> &
  Required<Pick<ParametersIn<Op, 'query'>, Extract<QueryDefaults<Op>, keyof ParametersIn<Op, 'query'>>>>;

/** The body of a response, in whichever media type the spec gives it (JSON, or text for metrics). */
type ResponseBody<R> = R extends { content: infer C } ? C[keyof C] : never;

/**
 * The body of a request, or undefined: a body that carries no parameter (empty, or `{}`) reaches a handler
 * as no body, even where the spec requires one (the handler names what is missing).
 */
type RequestBodyOf<Op extends OperationId> = [NonNullable<operations[Op]['requestBody']>] extends [never]
  ? undefined
  : NonNullable<operations[Op]['requestBody']> extends { content: infer C }
    ? C[keyof C] | undefined
    : undefined;

type SuccessStatus<Op extends OperationId> = Extract<keyof operations[Op]['responses'], 200 | 201 | 202 | 204>;

/** What a handler receives: validated path parameters, query, headers and body of the operation. */
export interface OperationRequest<Op extends OperationId> {
  readonly params: ParametersIn<Op, 'path'>;
  readonly query: ValidatedQuery<Op>;
  readonly body: RequestBodyOf<Op>;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * A JSON body already serialized, standing for a `T`: a server may answer from stored JSON text instead of
 * building objects and serializing them again. Whoever makes one vouches that `json` is the JSON text of a
 * `T`; the phantom property keeps one body type from passing for another.
 */
export interface SerializedJson<T> {
  readonly json: string;
  readonly __body?: T;
}

/**
 * A text body sent as it is produced and for as long as it lasts (a `text/event-stream`), standing for a
 * `T`: the server writes its chunks as they come. The phantom property keeps one body type from passing for
 * another.
 */
export interface StreamedText<T> {
  readonly streamed: true;
  readonly __body?: T;
}

/** What a handler answers: one of the operation's success statuses with its body. Errors are thrown. */
export type OperationReply<Op extends OperationId> = {
  [S in SuccessStatus<Op>]: {
    status: S;
    body:
      | ResponseBody<operations[Op]['responses'][S]>
      | SerializedJson<ResponseBody<operations[Op]['responses'][S]>>
      | StreamedText<ResponseBody<operations[Op]['responses'][S]>>;
    headers?: Readonly<Record<string, string>>;
  };
}[SuccessStatus<Op>];

/** The handler of one operation. `Context` is whatever the server passes (store, caller identity, clock…). */
export type OperationHandler<Op extends OperationId, Context> = (
  request: OperationRequest<Op>,
  context: Context,
) => Promise<OperationReply<Op>>;

/** One handler per operation of the spec: a missing or extra handler, or a wrong reply, fails to compile. */
export type HandlerMap<Context> = { readonly [Op in OperationId]: OperationHandler<Op, Context> };
