/**
 * `defineOperation`: one operation of the spec declared once, like an OpenAPI operation object:
 * its method, path template, family, action key, where each parameter travels, and the decoder of
 * its result. The client sends any operation from its declaration (`request.ts` builds the wire
 * request); nothing above the upstream layer knows a URL.
 */
import type { RecordDecoder } from '../decode.js';
import { describeSince, type Release } from '../releases.js';

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

/**
 * What a parameter's value is on the wire: a uuid, text, a 32-bit `int`, a 64-bit `long`, a
 * boolean, a list of uuids or of texts, or JSON the spec leaves unshown.
 */
export type WireKind = 'uuid' | 'text' | 'int' | 'long' | 'bool' | 'uuids' | 'texts' | 'json';

/** The value a parameter of each wire kind takes. */
export interface WireValues {
  uuid: string;
  text: string;
  int: number;
  long: number;
  bool: boolean;
  uuids: string[];
  texts: string[];
  json: unknown;
}

/**
 * A parameter declared with its upstream facts, so that the layers above expose it without
 * restating them: where it travels, its wire kind, whether a caller must give it, and the spec's
 * words about it. A parameter declared by its location alone is one whose value has a shape of
 * its own (an enumeration, an object) that the layer above spells.
 */
export interface ParamDeclaration<In extends ParamLocation | 'path' = ParamLocation | 'path', Kind extends WireKind = WireKind, Required extends boolean = boolean> {
  readonly in: In;
  readonly kind: Kind;
  /** Whether a caller must give it: every path parameter, and the others the spec requires. */
  readonly required: Required;
  /** The spec's description of the parameter, ending with `since` when it names one ("Since 2.6.0."). */
  readonly doc: string;
  /** The release that brought the parameter; left out, its operation's. */
  readonly since?: Release;
  /** Why the upstream deprecates it, when it does. */
  readonly deprecated?: string;
}

/**
 * A parameter declared by its location and the release that brought it, its value having a shape
 * the layer above spells (`shapedParam('body', { since: '5.1.0' })`).
 */
export interface ParamShape {
  readonly in: ParamLocation;
  readonly since: Release;
}

/**
 * A parameter as an operation declares it: its location (as old as its operation), its location
 * and release (`shapedParam`), or its location with its facts (`pathParam`, `bodyParam`).
 */
export type ParamSpec = ParamLocation | ParamShape | ParamDeclaration;

/** Whether a parameter is declared with its facts (kind, requiredness, description). */
export function isDeclaredParam(spec: ParamSpec): spec is ParamDeclaration {
  return typeof spec === 'object' && 'kind' in spec;
}

/** The release that brought a parameter: its own, else its operation's. */
export function paramRelease(operation: { readonly since: Release }, spec: ParamSpec | undefined): Release {
  return typeof spec === 'object' && spec.since !== undefined ? spec.since : operation.since;
}

/** A parameter of a shape the layer above spells, newer than its operation. */
export function shapedParam(location: ParamLocation, options: { since: Release }): ParamShape {
  return { in: location, since: options.since };
}

/** The declared parameters of an operation, by name, in the order they are sent. */
export type ParamSpecs = Readonly<Record<string, ParamSpec>>;

/** Where a declared parameter travels. */
export function locationOf(spec: ParamSpec): ParamLocation | 'path' {
  return typeof spec === 'string' ? spec : spec.in;
}

/** A path parameter: required, one percent-encoded segment. */
export function pathParam<const Kind extends WireKind>(kind: Kind, doc: string, options: { since?: Release } = {}): ParamDeclaration<'path', Kind, true> {
  return { in: 'path', kind, required: true, doc: describeSince(doc, options.since), ...(options.since === undefined ? {} : { since: options.since }) };
}

/** What a body or query parameter may say besides its kind and its description. */
export interface ParamOptions {
  /** @default false */
  readonly required?: boolean;
  readonly deprecated?: string;
  /** The release that brought the parameter, added to its description; left out, its operation's. */
  readonly since?: Release;
}

type RequiredOf<Options extends ParamOptions> = Options extends { required: true } ? true : false;

/** A parameter sent in the body (see `ParamLocation`). */
export function bodyParam<const Kind extends WireKind, const Options extends ParamOptions = Record<never, never>>(
  kind: Kind,
  doc: string,
  options?: Options,
): ParamDeclaration<'body', Kind, RequiredOf<Options>> {
  return {
    in: 'body',
    kind,
    doc: describeSince(doc, options?.since),
    required: (options?.required ?? false) as RequiredOf<Options>,
    ...(options?.deprecated === undefined ? {} : { deprecated: options.deprecated }),
    ...(options?.since === undefined ? {} : { since: options.since }),
  };
}

/** The value a declared parameter takes. */
type ValueOf<Spec> = Spec extends ParamDeclaration<ParamLocation | 'path', infer Kind> ? WireValues[Kind] : never;

/**
 * The values of an operation's parameters declared with their facts, by name: a required one's
 * value; an optional one's, absent or null.
 */
export type DeclaredValues<Op> = Op extends { readonly params: infer Specs }
  ? { readonly [K in keyof Specs as Specs[K] extends ParamDeclaration<ParamLocation | 'path', WireKind, true> ? K : never]: ValueOf<Specs[K]> } & {
      readonly [K in keyof Specs as Specs[K] extends ParamDeclaration<ParamLocation | 'path', WireKind, false> ? K : never]?: ValueOf<Specs[K]> | null;
    }
  : never;

/** The `{name}` placeholders of a path template, e.g. `'uuid'` for `cbt-task/{uuid}`. */
export type PathParamNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParamNames<Rest> : never;

/**
 * The parameters of an operation: every path parameter, required (a caller that leaves one out
 * does not compile), and the declared others, optional.
 */
export type OperationParams<Path extends string, Locations> = { readonly [K in PathParamNames<Path>]: string } & {
  readonly [K in keyof Locations]?: unknown;
};

export interface OperationDeclaration<Path extends string, Locations extends ParamSpecs, Result> {
  /** The spec's operation name, e.g. `DestroyVmInstance`: named in errors, metrics and the simulator's counts. */
  readonly name: string;
  readonly method: HttpMethod;
  readonly family: OperationFamily;
  /** The release that brought the operation, as the spec says it (`null`: the job poll, as old as the service). */
  readonly since: Release;
  /** Relative to the family's root, `{name}` standing for a path parameter (one segment, percent-encoded). */
  readonly path: Path;
  /** PUT `.../actions` only: the key of the action object, which selects the operation. */
  readonly actionKey?: string;
  /**
   * Where each parameter travels, in the order they are sent; a write's parameters with their
   * facts (`pathParam`, `bodyParam`), a path parameter being declared only to give them.
   */
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

export interface Operation<Path extends string = string, Locations extends ParamSpecs = ParamSpecs, Result = unknown>
  extends OperationDeclaration<Path, Locations, Result> {
  /** The path template, split once. */
  readonly pathParts: readonly PathPart[];
  /** The names sent on the query string, in order. */
  readonly queryNames: readonly string[];
  /** The names sent in the body, in order. */
  readonly bodyNames: readonly string[];
}

/** Any operation, whatever its parameters and result. */
export type AnyOperation = Operation<string, ParamSpecs, unknown>;

/** A read: a synchronous GET, retried on transport failures. */
export type ReadOperation<Path extends string = string, Locations extends ParamSpecs = ParamSpecs, Result = unknown> =
  Operation<Path, Locations, Result> & { readonly method: 'GET' };

/** A write: an asynchronous job of the resource family, never retried. */
export type WriteOperation<Path extends string = string, Locations extends ParamSpecs = ParamSpecs, Result = unknown> =
  Operation<Path, Locations, Result> & { readonly method: 'POST' | 'PUT' | 'DELETE'; readonly family: 'resource' };

/** The parameters an operation takes. */
export type ParamsOf<Op> = Op extends Operation<infer Path, infer Locations, unknown> ? OperationParams<Path, Locations> : never;

/** What an operation's decoder returns. */
export type ResultOf<Op> = Op extends Operation<string, ParamSpecs, infer Result> ? Result : never;

/** `GET cbt-task/{uuid}`: the method and the path template, as the spec writes them. */
export type Route<Method extends HttpMethod = HttpMethod> = `${Method} ${string}`;

/** The path template of a route. */
export type PathOfRoute<R extends string> = R extends `${HttpMethod} ${infer Path}` ? Path : never;

/** What a declaration says besides its name and route. */
export interface OperationOptions<Path extends string, Locations extends ParamSpecs, Result> {
  /** The release that brought the operation (`since: '4.10.6'`). */
  readonly since: Release;
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
export function defineOperation<const R extends Route<'GET'>, const Locations extends ParamSpecs = NoParams, Result = unknown>(
  name: string,
  route: R,
  options: OperationOptions<PathOfRoute<R>, Locations, Result>,
): ReadOperation<PathOfRoute<R>, Locations, Result>;
export function defineOperation<
  const R extends Route<'POST' | 'PUT' | 'DELETE'>,
  const Locations extends ParamSpecs = NoParams,
  Result = unknown,
>(name: string, route: R, options: OperationOptions<PathOfRoute<R>, Locations, Result> & { family?: 'resource' }): WriteOperation<PathOfRoute<R>, Locations, Result>;
export function defineOperation<const R extends Route, const Locations extends ParamSpecs, Result>(
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
  const locations = Object.entries(params).map(([param, spec]) => [param, locationOf(spec)] as const);
  const pathNames = new Set(pathParts.flatMap((part) => ('param' in part ? [part.param] : [])));
  for (const [param, location] of locations) {
    if ((location === 'path') !== pathNames.has(param)) throw new TypeError(`${name}: ${param} is declared in ${location}, the path template says otherwise`);
  }
  return {
    name,
    method,
    family: options.family ?? 'resource',
    since: options.since,
    path,
    ...(options.actionKey === undefined ? {} : { actionKey: options.actionKey }),
    params,
    decode: options.decode,
    pathParts,
    queryNames: locations.filter(([, location]) => location === 'query' || location === 'body+query').map(([param]) => param),
    bodyNames: locations.filter(([, location]) => location === 'body' || location === 'body+query').map(([param]) => param),
  };
}
