/**
 * Declarative list queries: from one declaration per resource (its filter fields, each a record
 * field, a family-neutral operator, a GraphQL type and a description, and its sort keys) come the
 * `<Type>Filter` input, the `<Type>OrderField` enum, the `<Type>Order` input and the connection
 * query field, plus the by-uuid query field next to it. The resolver reads through the resource's
 * family (`families.ts`), which spells the conditions for its upstream.
 */
import type { InputRef, OutputRef } from '@pothos/core';
import { builder } from '../../builder.js';
import type { Condition, RecordFamily, Sort } from './families.js';
import { pageArgs } from './connections.js';

export const OrderDirection = builder.enumType('OrderDirection', {
  description: 'Sort direction.',
  values: {
    ASC: { value: 'asc', description: 'Smallest first.' },
    DESC: { value: 'desc', description: 'Largest first.' },
  } as const,
});

/** The GraphQL type of a filter field: a scalar, a list of uuids, or an enum (given by its ref). */
export type FilterFieldType = 'Uuid' | 'String' | ['Uuid'] | InputRef<string>;

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

/** One sort key of the `<Type>OrderField` enum: the record field and its description. */
export interface OrderField {
  readonly value: string;
  readonly description: string;
}

/** The sort keys of every record with the two timestamps. */
export const DATE_ORDER_FIELDS = {
  CREATE_DATE: { value: 'createDate', description: 'Creation time.' },
  LAST_OP_DATE: { value: 'lastOpDate', description: 'Last update time.' },
} as const satisfies Readonly<Record<string, OrderField>>;

/** The sort keys of every named record with the two timestamps. */
export const NAME_AND_DATE_ORDER_FIELDS = {
  ...DATE_ORDER_FIELDS,
  NAME: { value: 'name', description: 'Name.' },
} as const satisfies Readonly<Record<string, OrderField>>;

export interface ListQuery<R> {
  /** Prefix of the generated types: `<typeName>Filter`, `<typeName>OrderField`, `<typeName>Order`. */
  readonly typeName: string;
  readonly family: RecordFamily<R>;
  /** The connection type of the query field. */
  readonly connection: OutputRef<unknown>;
  /** The connection query field, e.g. `volumes`. */
  readonly list: { readonly name: string; readonly description: string };
  /** The by-uuid query field, e.g. `volume(uuid:)`, resolved by the type's loader. */
  readonly one?: {
    readonly name: string;
    readonly type: OutputRef<unknown>;
    readonly description: string;
    readonly argDescription: string;
  };
  readonly filter: {
    /** Of the input type. */
    readonly description: string;
    /** Of the `filter` argument. */
    readonly argDescription: string;
    readonly fields: Readonly<Record<string, FilterField>>;
  };
  readonly order: {
    /** Of the `<typeName>OrderField` enum. */
    readonly fieldsDescription: string;
    /** Of the `<typeName>Order` input. */
    readonly description: string;
    /** Of the `orderBy` argument. */
    readonly argDescription: string;
    readonly fields: Readonly<Record<string, OrderField>>;
  };
}

type FilterValues = Readonly<Record<string, string | readonly string[] | null | undefined>>;

interface ListArgs {
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
    if (op === 'in') where.push({ field, op, value: typeof value === 'string' ? [value] : value });
    else if (typeof value !== 'string') throw new TypeError(`Filter field ${name} takes one value.`);
    else if (op === 'eq' || value) where.push({ field, op, value });
  }
  return where;
}

function sortOf(orderBy: ListArgs['orderBy']): Sort | undefined {
  return orderBy ? { field: orderBy.field, direction: orderBy.direction ?? undefined } : undefined;
}

/** Registers the types and query fields of `query` (see the module comment). */
export function defineListQuery<R>(query: ListQuery<R>): void {
  const { typeName, filter, order } = query;
  const Filter = builder.inputType(`${typeName}Filter`, {
    description: filter.description,
    fields: (t) =>
      Object.fromEntries(
        Object.entries(filter.fields).map(([name, { type, description }]) => [
          name,
          // The declaration types each field; Pothos cannot follow a type chosen per entry.
          t.field({ type: type as 'String', description }),
        ]),
      ),
  });
  const OrderFieldEnum = builder.enumType(`${typeName}OrderField`, { description: order.fieldsDescription, values: order.fields });
  const Order = builder.inputType(`${typeName}Order`, {
    description: order.description,
    fields: (t) => ({
      field: t.field({ type: OrderFieldEnum, required: true, description: 'Sort key.' }),
      direction: t.field({ type: OrderDirection, defaultValue: 'asc', description: 'Direction. Default ASC.' }),
    }),
  });

  builder.queryFields((t) => ({
    [query.list.name]: t.field({
      type: query.connection,
      nullable: true,
      description: query.list.description,
      args: {
        ...pageArgs,
        filter: t.arg({ type: Filter, description: filter.argDescription }),
        orderBy: t.arg({ type: Order, description: order.argDescription }),
      },
      resolve: (_root, rawArgs, context) => {
        const args = rawArgs as ListArgs;
        return query.family.page(context, {
          first: args.first,
          after: args.after,
          where: conditionsOf(filter.fields, args.filter),
          sort: sortOf(args.orderBy),
        });
      },
    }),
    ...(query.one && {
      [query.one.name]: t.field({
        type: query.one.type,
        nullable: true,
        description: query.one.description,
        args: { uuid: t.arg({ type: 'Uuid', required: true, description: query.one.argDescription }) },
        resolve: (_root, args) => args.uuid,
      }),
    }),
  }));
}
