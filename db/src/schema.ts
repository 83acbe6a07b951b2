// Table types for Kysely; filled in as migrations land.
export interface Database {}
