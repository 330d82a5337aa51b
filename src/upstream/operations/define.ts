/**
 * `defineOperation`: one operation of the spec declared once, like an OpenAPI operation object:
 * its method, path template, family, action key, where each parameter travels, and the decoder of
 * its result. The client sends any operation from its declaration (`request.ts` builds the wire
 * request); nothing above the upstream layer knows a URL.
 */
import type { RecordDecoder } from '../decode.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * Which of the service's two families serves the operation: `resource` below
 * `{base_url}/svc/v1/` (`Authorization: OAuth ...`), `cursor` below
 * `{resources origin}/api/v1/resources/` (`Authorization: Bearer ...`, `X-Tenant-ID`).
 */
export type OperationFamily = 'resource' | 'cursor';

/**
 * Where a parameter that is not in the path template travels.
 * - `query`: the query string; a list repeats its key; `undefined` and `null` are left out.
 * - `body`: POST: the body's `params` object; PUT: the action object under the action key;
 *   DELETE: the body's `params` (the body is sent only when it carries something).
 * - `body+query`: both, as the spec sends RemoveSNSSmsReceiver's `deleteMode`.
 * - `local`: never sent; the decoder reads it (the resource type of a cursor page).
 */
export type ParamLocation = 'query' | 'body' | 'body+query' | 'local';

/** The `{name}` placeholders of a path template, e.g. `'uuid'` for `cbt-task/{uuid}`. */
export type PathParamNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParamNames<Rest> : never;

/**
 * The parameters of an operation: every path parameter, required (a caller that leaves one out
 * does not compile), and the declared others, optional.
 */
export type OperationParams<Path extends string, Locations> = { readonly [K in PathParamNames<Path>]: string } & {
  readonly [K in keyof Locations]?: unknown;
};

export interface OperationDeclaration<Path extends string, Locations extends Readonly<Record<string, ParamLocation>>, Result> {
  /** The spec's operation name, e.g. `DestroyVmInstance`: named in errors, metrics and the simulator's counts. */
  readonly name: string;
  readonly method: HttpMethod;
  readonly family: OperationFamily;
  /** Relative to the family's root, `{name}` standing for a path parameter (one segment, percent-encoded). */
  readonly path: Path;
  /** PUT `.../actions` only: the key of the action object, which selects the operation. */
  readonly actionKey?: string;
  /** Where each parameter other than a path parameter travels, in the order they are sent. */
  readonly params: Locations;
  /**
   * Reads the success body: for a read, the answer; for a write, the finished job's body (202
   * then webhook or poll), or the 200 answer of a write the service finished at once.
   * `decoder` is the one for the caller's record demand.
   */
  decode(body: Record<string, unknown>, decoder: RecordDecoder, params: OperationParams<Path, Locations>): Result;
}

/** A piece of a compiled path template: literal text, or the name of a path parameter. */
export type PathPart = { readonly text: string } | { readonly param: string };

export interface Operation<Path extends string = string, Locations extends Readonly<Record<string, ParamLocation>> = Readonly<Record<string, ParamLocation>>, Result = unknown>
  extends OperationDeclaration<Path, Locations, Result> {
  /** The path template, split once. */
  readonly pathParts: readonly PathPart[];
  /** The names sent on the query string, in order. */
  readonly queryNames: readonly string[];
  /** The names sent in the body, in order. */
  readonly bodyNames: readonly string[];
}

/** Any operation, whatever its parameters and result. */
export type AnyOperation = Operation<string, Readonly<Record<string, ParamLocation>>, unknown>;

/** A read: a synchronous GET, retried on transport failures. */
export type ReadOperation<Path extends string = string, Locations extends Readonly<Record<string, ParamLocation>> = Readonly<Record<string, ParamLocation>>, Result = unknown> =
  Operation<Path, Locations, Result> & { readonly method: 'GET' };

/** A write: an asynchronous job of the resource family, never retried. */
export type WriteOperation<Path extends string = string, Locations extends Readonly<Record<string, ParamLocation>> = Readonly<Record<string, ParamLocation>>, Result = unknown> =
  Operation<Path, Locations, Result> & { readonly method: 'POST' | 'PUT' | 'DELETE'; readonly family: 'resource' };

/** The parameters an operation takes. */
export type ParamsOf<Op> = Op extends Operation<infer Path, infer Locations, unknown> ? OperationParams<Path, Locations> : never;

/** What an operation's decoder returns. */
export type ResultOf<Op> = Op extends Operation<string, Readonly<Record<string, ParamLocation>>, infer Result> ? Result : never;

/** `GET cbt-task/{uuid}`: the method and the path template, as the spec writes them. */
export type Route<Method extends HttpMethod = HttpMethod> = `${Method} ${string}`;

/** The path template of a route. */
export type PathOfRoute<R extends string> = R extends `${HttpMethod} ${infer Path}` ? Path : never;

/** What a declaration says besides its name and route. */
export interface OperationOptions<Path extends string, Locations extends Readonly<Record<string, ParamLocation>>, Result> {
  /** @default 'resource' */
  readonly family?: OperationFamily;
  readonly actionKey?: string;
  /** @default {} (path parameters only) */
  readonly params?: Locations;
  decode: OperationDeclaration<Path, Locations, Result>['decode'];
}

type NoParams = Readonly<Record<never, ParamLocation>>;

/**
 * Declares one operation: its spec name, its route (`PUT hosts/nqn/{uuid}/actions`, as the spec
 * writes it) and the rest. The declaration is checked once here (a PUT action needs its key).
 */
export function defineOperation<const R extends Route<'GET'>, const Locations extends Readonly<Record<string, ParamLocation>> = NoParams, Result = unknown>(
  name: string,
  route: R,
  options: OperationOptions<PathOfRoute<R>, Locations, Result>,
): ReadOperation<PathOfRoute<R>, Locations, Result>;
export function defineOperation<
  const R extends Route<'POST' | 'PUT' | 'DELETE'>,
  const Locations extends Readonly<Record<string, ParamLocation>> = NoParams,
  Result = unknown,
>(name: string, route: R, options: OperationOptions<PathOfRoute<R>, Locations, Result> & { family?: 'resource' }): WriteOperation<PathOfRoute<R>, Locations, Result>;
export function defineOperation<const R extends Route, const Locations extends Readonly<Record<string, ParamLocation>>, Result>(
  name: string,
  route: R,
  options: OperationOptions<PathOfRoute<R>, Locations, Result>,
): Operation<PathOfRoute<R>, Locations, Result> {
  const space = route.indexOf(' ');
  const method = route.slice(0, space) as HttpMethod;
  const path = route.slice(space + 1) as PathOfRoute<R>;
  if (method === 'PUT' && options.actionKey === undefined) throw new TypeError(`${name}: a PUT action needs its actionKey`);
  const pathParts: PathPart[] = [];
  for (const [index, piece] of path.split(/\{([^}]+)\}/).entries()) {
    // split() with a capture group alternates literal text and parameter names.
    if (index % 2 === 1) pathParts.push({ param: piece });
    else if (piece !== '') pathParts.push({ text: piece });
  }
  const params = options.params ?? ({} as Locations);
  const locations = Object.entries(params) as [string, ParamLocation][];
  return {
    name,
    method,
    family: options.family ?? 'resource',
    path,
    ...(options.actionKey === undefined ? {} : { actionKey: options.actionKey }),
    params,
    decode: options.decode,
    pathParts,
    queryNames: locations.filter(([, location]) => location === 'query' || location === 'body+query').map(([param]) => param),
    bodyNames: locations.filter(([, location]) => location === 'body' || location === 'body+query').map(([param]) => param),
  };
}

/** Parameters that all travel in the body, in this order: `inBody('name', 'description')`. */
export function inBody<const Names extends readonly string[]>(...names: Names): { readonly [K in Names[number]]: 'body' } {
  return Object.fromEntries(names.map((name) => [name, 'body'])) as { readonly [K in Names[number]]: 'body' };
}
