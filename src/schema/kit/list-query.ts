/**
 * Declarative list queries: from one declaration per resource (its record, its filter fields, each a
 * record field, a family-neutral operator, a GraphQL type and a description, and its sort keys) come the
 * `<Type>Connection` type, the `<Type>Filter` input, the `<Type>OrderField` enum, the `<Type>Order`
 * input and the connection query field, plus the by-uuid query field next to it. The resolver reads through the resource's
 * family (`families.ts`), which spells the conditions for its upstream. The same `filter` and
 * `orderBy` serve the nested connections of the resource (`Host.vmInstances`): `defineListQuery`
 * answers them (`ListArguments`), and each condition reaches the upstream with the parent's own.
 */
import type { InputRef, OutputRef } from '@pothos/core';
import { builder } from '../../builder.js';
import { fieldRelease, type FieldSpec } from '../../upstream/define-record.js';
import { newerOf, type Release } from '../../upstream/releases.js';
import { RECORDS } from '../../upstream/records.js';
import type { CredentialFamily } from '../../upstream/session.js';
import type { Condition, RecordFamily, Sort } from './families.js';
import type { ChildQuery } from './loading.js';
import type { GatewayContext } from '../../context.js';
import { loadListConnection, pageArgs, type PageArgs } from './connections.js';
import { exposedAs } from './record-fields.js';
import { GraphQLError } from 'graphql';
import { closedSetEnum, constantCase, isFallback } from './enums.js';

export const OrderDirection = closedSetEnum('OrderDirection', {
  description: 'Sort direction.',
  values: { asc: 'Smallest first.', desc: 'Largest first.' },
  since: null,
});

/** The GraphQL type of a filter field: a scalar or an enum (given by its ref), or a list of one. */
export type FilterFieldType = 'Uuid' | 'String' | InputRef<string> | readonly ['Uuid'] | readonly ['String'] | readonly [InputRef<string>];

/**
 * One filter field: `in` takes a list (one value is an equality, none matches nothing),
 * `contains` a text (an empty one is no condition), `eq` one value.
 */
export interface FilterField {
  /** The record field the condition is on. */
  readonly field: string;
  readonly op: 'eq' | 'in' | 'contains';
  readonly type: FilterFieldType;
  readonly description: string;
}

/**
 * A filter field as a list query declares it: the record field defaults to the filter's name, and
 * the GraphQL type to the one that field's kind is exposed as (`uuidRef` → `Uuid`, `text` →
 * `String`; a list of it for `in`), so most read `zoneUuid: equals('Only hosts of this zone.')`.
 * An enum is given as `type`.
 */
export type FilterFieldDeclaration = Omit<FilterField, 'field' | 'type'> & Partial<Pick<FilterField, 'field' | 'type'>>;

/** The record field of the filter's name equals the value given; `type` for a field shown as an enum. */
export function equals(description: string, type?: InputRef<string>): FilterFieldDeclaration {
  return type === undefined ? { op: 'eq', description } : { op: 'eq', type, description };
}

/**
 * The record field `field` is any of the values given (`stateIn: anyOf('state', ...)`): one is an
 * equality, none matches nothing; `type` for a field shown as an enum.
 */
export function anyOf(field: string, description: string, type?: InputRef<string>): FilterFieldDeclaration {
  return type === undefined ? { op: 'in', field, description } : { op: 'in', field, type: [type], description };
}

/** The record field `field` contains the text given (an empty one is no condition). */
export function contains(field: string, description: string): FilterFieldDeclaration {
  return { op: 'contains', field, description };
}

/** The `uuids` filter field every list has: the records named, one request for all of them. */
export function uuidsFilter(plural: string): FilterField {
  return { field: 'uuid', op: 'in', type: ['Uuid'], description: `Only these ${plural}.` };
}

/** The `nameContains` filter field of every named record. */
export const NAME_CONTAINS_FILTER = contains('name', 'Name contains this text.');

/**
 * The sort keys of a `<Type>OrderField` enum: each record field the upstream sorts by, with its
 * description; the GraphQL name derives from the field (`createDate` → `CREATE_DATE`), as an
 * enum's from its wire values.
 */
export type OrderFields<R> = Readonly<Partial<Record<keyof R & string, string>>>;

/** The sort keys of every record with the two timestamps. */
export const DATE_ORDER_FIELDS = { createDate: 'Creation time.', lastOpDate: 'Last update time.' } as const;

/**
 * The sort keys of the two timestamps of a record the upstream discovers rather than creates (a
 * host's HBA ports, a SAN's LUNs): its `createDate` is when it was found.
 */
export const DISCOVERY_DATE_ORDER_FIELDS = { ...DATE_ORDER_FIELDS, createDate: 'Discovery time.' } as const;

/** The sort key of a record's name. */
export const NAME_ORDER_FIELD = { name: 'Name.' } as const;

/** The sort keys of every named record with the two timestamps. */
export const NAME_AND_DATE_ORDER_FIELDS = { ...DATE_ORDER_FIELDS, ...NAME_ORDER_FIELD } as const;

/**
 * What `defineListQuery` answers for the nested connections of its resource: the `filter` and
 * `orderBy` arguments (the resource's own input types) and what a field's arguments ask for.
 */
export interface ListArguments {
  /** The resource's connection type, which its nested connections answer too. */
  readonly connection: OutputRef<unknown>;
  /** `filter` and `orderBy`, to spread into a nested connection field's `args` beside `pageArgs`. */
  readonly args: ReturnType<typeof listArgsOf>;
  /** The conditions and the order a field's arguments ask for (its `filter` and `orderBy`, as GraphQL coerced them). */
  queryOf(args: { filter?: unknown; orderBy?: unknown }): ChildQuery;
}

export interface ListQuery<R> {
  /** The record listed: a filter field's record field and GraphQL type default from its definition. */
  readonly record: keyof typeof RECORDS;
  readonly family: RecordFamily<R>;
  /**
   * The description of `<Type>Connection`, the page of records the query field and the resource's
   * nested connections answer (`defineListQuery` registers it); left out, it has none.
   */
  readonly connectionDescription?: string;
  /** What the records are called in the generated descriptions, e.g. `an HBA port`, `HBA ports`. */
  readonly naming: { readonly a: string; readonly plural: string };
  /**
   * The release that brought the resource: both query fields' descriptions end `Since <since>.`;
   * left out, the query fields are as old as the family's reads, and say nothing.
   */
  readonly since?: string;
  /**
   * The connection query field, e.g. `volumes`, described by what it lists and how it is read;
   * what a failure gives (and which credential it needs) is added from the family.
   */
  readonly list: { readonly name: string; readonly description: string };
  /** The by-uuid query field, named after the record (`volume(uuid:)`), resolved by the type's loader. */
  readonly one: {
    /**
     * The node type listed, whose name prefixes the generated types: `<Type>Connection`,
     * `<Type>Filter`, `<Type>OrderField`, `<Type>Order`.
     */
    readonly type: OutputRef<unknown>;
    /** What one record is called in its description: `One <noun> by uuid; ...`. */
    readonly noun: string;
    readonly argDescription: string;
  };
  readonly filter: {
    /** Of the input type; by default `Conditions on <plural>; all given conditions must hold.` */
    readonly description?: string;
    /** Of the `filter` argument. */
    readonly argDescription: string;
    readonly fields: Readonly<Record<string, FilterFieldDeclaration>>;
  };
  readonly order: {
    /** Of the `orderBy` argument; by default the family's order when none is asked for. */
    readonly argDescription?: string;
    readonly fields: OrderFields<R>;
  };
}

type FilterValues = Readonly<Record<string, string | readonly string[] | null | undefined>>;

/** The arguments of a list field (root or nested) as its resolver receives them. */
export interface ListArgs {
  first?: number | null | undefined;
  after?: string | null | undefined;
  filter?: FilterValues | null | undefined;
  orderBy?: { field: string; direction?: 'asc' | 'desc' | null | undefined } | null | undefined;
}

/** The family-neutral conditions a filter argument states; absent fields state none. */
export function conditionsOf(fields: Readonly<Record<string, FilterField>>, filter: FilterValues | null | undefined): Condition[] {
  const where: Condition[] = [];
  if (!filter) return where;
  for (const [name, { field, op }] of Object.entries(fields)) {
    const value = filter[name];
    if (value === null || value === undefined) continue;
    if (isFallback(value)) throw fallbackInFilter(name);
    if (op === 'in') where.push({ field, op, value: typeof value === 'string' ? [value] : value });
    else if (typeof value !== 'string') throw new TypeError(`Filter field ${name} takes one value.`);
    else if (op === 'eq' || value) where.push({ field, op, value });
  }
  return where;
}

/**
 * The error of a filter naming an enum's fallback: `OTHER` stands for whatever value the API does
 * not know yet, which the upstream cannot be asked for by name.
 */
function fallbackInFilter(name: string): GraphQLError {
  return new GraphQLError(
    `Filter field ${name}: OTHER (or UNKNOWN) is what this API answers for a value it does not know yet; it cannot be filtered on. Filter on the known values, or read \`<field>Raw\` to see the upstream's text.`,
    { extensions: { code: 'BAD_USER_INPUT', argument: 'filter', field: name } },
  );
}

function sortOf(orderBy: ListArgs['orderBy']): Sort | undefined {
  return orderBy ? { field: orderBy.field, direction: orderBy.direction ?? undefined } : undefined;
}

/** The `Authorization` header each family's reads need, as the descriptions name it. */
const CREDENTIAL_HEADERS: Readonly<Record<CredentialFamily, string>> = { resource: 'Authorization', cursor: 'X-Resources-Authorization' };

function sinceOf(query: ListQuery<unknown>): string {
  return query.since === undefined ? '' : ` Since ${query.since}.`;
}

/** The release of a list query's fields: its own, or its family's reads'; never older than its record. */
function releaseOf(query: ListQuery<unknown>): Release {
  return newerOf(query.since ?? query.family.since, RECORDS[query.record].since ?? null);
}

function listDescription<R>(query: ListQuery<R>): string {
  const header = CREDENTIAL_HEADERS[query.family.credential];
  return `${query.list.description} Null when they cannot be read (with an error): no \`${header}\` sent (\`UNAUTHENTICATED\`) or the upstream failing; the other fields of the query still answer.${sinceOf(query)}`;
}

function oneDescription<R>(query: ListQuery<R>, noun: string): string {
  return `One ${noun} by uuid; null when it does not exist (with a \`NOT_FOUND\` error) or cannot be read (with the error that stopped it, e.g. \`UNAUTHENTICATED\`).${sinceOf(query)}`;
}

/** Each filter field whole: what a declaration leaves out comes from the record's definition. */
function filterFieldsOf(record: keyof typeof RECORDS, fields: Readonly<Record<string, FilterFieldDeclaration>>): Record<string, FilterField> {
  const specs = RECORDS[record].fields as Readonly<Record<string, FieldSpec<unknown>>>;
  return Object.fromEntries(
    Object.entries(fields).map(([name, declared]) => {
      const field = declared.field ?? name;
      const kindType = Object.hasOwn(specs, field) ? exposedAs(specs[field]!.kind)?.type : undefined;
      const scalar = typeof kindType === 'string' ? (kindType as 'Uuid' | 'String') : undefined;
      const type = declared.type ?? (scalar === undefined ? undefined : declared.op === 'in' ? ([scalar] as const) : scalar);
      if (type === undefined) throw new Error(`${record}.${field}: the filter ${name} needs a record field of a scalar kind, or a type of its own`);
      return [name, { ...declared, field, type }];
    }),
  );
}

/** The `filter` and `orderBy` arguments of a resource's list fields, on its own input types. */
function listArgsOf(Filter: InputRef<unknown>, Order: InputRef<unknown>, filterDescription: string, orderDescription: string) {
  return builder.args((t) => ({
    filter: t.field({ type: Filter, description: filterDescription }),
    orderBy: t.field({ type: Order, description: orderDescription }),
  }));
}

/**
 * Registers the types and query fields of `query` (see the module comment); answers what its
 * nested connections take.
 */
export function defineListQuery<R>(query: ListQuery<R>): ListArguments {
  const { order } = query;
  const typeName = query.one.type.name;
  const filter = { ...query.filter, fields: filterFieldsOf(query.record, query.filter.fields) };
  const { a, plural } = query.naming;
  const since = releaseOf(query as ListQuery<unknown>);
  const record = RECORDS[query.record];
  // A condition or a sort key on a record field is as old as the field (or as the query, if newer).
  const onField = (field: string): Release => newerOf(since, fieldRelease(record, field) ?? since);
  const connection = builder.connectionObject({
    type: query.one.type,
    name: `${typeName}Connection`,
    ...(query.connectionDescription === undefined ? {} : { description: query.connectionDescription }),
  });
  const Filter = builder.inputType(`${typeName}Filter`, {
    description: filter.description ?? `Conditions on ${plural}; all given conditions must hold.`,
    extensions: { since },
    fields: (t) =>
      Object.fromEntries(
        Object.entries(filter.fields).map(([name, { type, description, field }]) => [
          name,
          // The declaration types each field; Pothos cannot follow a type chosen per entry.
          t.field({ type: type as 'String', description, extensions: { since: onField(field) } }),
        ]),
      ),
  });
  const orderValues = Object.fromEntries(
    Object.entries<string | undefined>(order.fields).map(([field, description]) => [
      constantCase(field),
      { value: field, description, extensions: { since: onField(field) } },
    ]),
  );
  const OrderFieldEnum = builder.enumType(`${typeName}OrderField`, { description: `Fields ${plural} can be sorted by.`, values: orderValues, extensions: { since } });
  const Order = builder.inputType(`${typeName}Order`, {
    description: `Order of ${a} connection.`,
    extensions: { since },
    fields: (t) => ({
      field: t.field({ type: OrderFieldEnum, required: true, description: 'Sort key.' }),
      direction: t.field({ type: OrderDirection, defaultValue: 'asc', description: 'Direction. Default ASC.' }),
    }),
  });

  const args = listArgsOf(Filter, Order, filter.argDescription, order.argDescription ?? `Sort order. Default: ${query.family.defaultOrder}.`);
  const queryOf = (listArgs: { filter?: unknown; orderBy?: unknown }): ChildQuery => {
    // The input types above shape both arguments; Pothos types them only as far as `unknown`.
    const { filter: values, orderBy } = listArgs as Pick<ListArgs, 'filter' | 'orderBy'>;
    return { where: conditionsOf(filter.fields, values), sort: sortOf(orderBy) };
  };

  builder.queryFields((t) => ({
    [query.list.name]: t.field({
      type: connection,
      nullable: true,
      description: listDescription(query),
      extensions: { since },
      args: { ...pageArgs, ...args },
      resolve: (_root, rawArgs, context) => {
        const listArgs = rawArgs as ListArgs;
        return query.family.page(context, { first: listArgs.first, after: listArgs.after, ...queryOf(listArgs) });
      },
    }),
    [query.record]: t.field({
      type: query.one.type,
      nullable: true,
      description: oneDescription(query, query.one.noun),
      extensions: { since },
      args: { uuid: t.arg({ type: 'Uuid', required: true, description: query.one.argDescription }) },
      resolve: (_root, uuidArgs) => uuidArgs.uuid,
    }),
  }));
  return { connection, args, queryOf };
}

/**
 * What a connection of each parent's children (`Host.vmInstances`) spreads into its field: the
 * children's connection type (null when they cannot be read), the paging arguments with their
 * `filter` and `orderBy`, and the resolver that reads the parent's children meeting them through
 * `children` (a `childrenLoader`: one upstream read for every parent of the batch asking the
 * same), the page's cursors bound to `field`.
 */
export function childConnection<T>(listArgs: ListArguments, children: (context: GatewayContext) => { load(key: string): Promise<readonly T[]> }, field: string) {
  return {
    type: listArgs.connection,
    nullable: true as const,
    args: { ...pageArgs, ...listArgs.args },
    resolve: (parent: { uuid: string }, args: PageArgs & { filter?: unknown; orderBy?: unknown }, context: GatewayContext) =>
      loadListConnection(context, children(context), parent.uuid, listArgs.queryOf(args), args, field),
  };
}
