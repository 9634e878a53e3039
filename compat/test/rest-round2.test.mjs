// rest and rpc, round 2 (issue 19) through supabase-js: Prefer: count on
// calls (POST, GET, HEAD), bulk inserts with column defaults
// (defaultToNull: false), the in-database configuration (pgrst.* settings
// of the login role, reloaded on NOTIFY pgrst, 'reload config'), aggregates,
// Prefer: tx, overloaded functions, computed fields and a second exposed
// schema. Fixtures:
// compat/fixtures/rest-round2.sql (schemas round2 and round2_extra) and
// rest-round2-config.sql (the role's pgrst.* settings). The expectations are
// PostgREST 14's answers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startStack } from '../harness/stack.mjs';
import { restHelpers } from '../harness/rest.mjs';

const perService = (name, value) => ({ [`KEJANEST_REST_${name}`]: value, [`KEJANEST_RPC_${name}`]: value });

let stack;
let db;
before(async () => {
  stack = await startStack({
    // Neither aggregates nor tx_end come from the environment: the
    // database's configuration turns them on.
    env: { ...perService('PGRST_DB_SCHEMAS', 'round2,round2_extra') },
    sql: ['fixtures/rest-round2.sql', 'fixtures/rest-round2-config.sql'],
  });
  db = stack.client(stack.serviceRoleKey);
});
after(async () => { await stack?.stop(); });

const { psql, raw, rows } = restHelpers(() => stack);

describe('Prefer: count on rpc', () => {
  test('POST with count=exact counts the filtered rows', async () => {
    const { data, count, status } = await db.schema('round2').rpc('projects_over', { min: 600 }, { count: 'exact' }).select('id').order('id').limit(1);
    assert.equal(status, 206);
    assert.equal(count, 3);
    assert.deepEqual(data, [{ id: 1 }]);
  });

  test('HEAD with count=exact', async () => {
    const { data, count, status } = await db.schema('round2').rpc('projects_over', { min: 0 }, { head: true, count: 'exact' });
    assert.equal(status, 200);
    assert.equal(count, 4);
    assert.equal(data, null);
  });

  test('GET with count=estimated counts exactly (below max-rows)', async () => {
    const { data, count } = await db.schema('round2').rpc('projects_over', { min: 1000 }, { get: true, count: 'estimated' }).select('id').order('id');
    assert.equal(count, 3);
    assert.deepEqual(data, [{ id: 1 }, { id: 2 }, { id: 4 }]);
  });

  test('count=planned gives no total on a call', async () => {
    const { data, count, error } = await db.schema('round2').rpc('projects_over', { min: 0 }, { count: 'planned' }).select('id').limit(1);
    assert.equal(error, null);
    // postgrest-js reads the total after "/" with parseInt: "*" gives NaN.
    assert.ok(Number.isNaN(count), `count ${count}`);
    assert.deepEqual(data, [{ id: 1 }]);
    const res = await raw('/rpc/projects_over?min=0&select=id&limit=1', { headers: { 'Accept-Profile': 'round2', Prefer: 'count=planned' } });
    assert.equal(res.headers.get('content-range'), '0-0/*');
    assert.equal(res.headers.get('preference-applied'), 'count=planned');
  });

  test('a scalar counts as one row', async () => {
    const { data, count, status } = await db.schema('round2').rpc('project_total', {}, { count: 'exact' });
    assert.equal(status, 200);
    assert.equal(count, 1);
    assert.equal(data, 8000);
  });
});

describe('bulk insert with column defaults', () => {
  test('defaultToNull: false fills absent keys with the column default', async () => {
    const data = await rows(db.schema('round2').from('projects')
      .insert([{ name: 'Canal' }, { name: 'Pier', budget: 5, status: 'done' }], { defaultToNull: false })
      .select('name, budget, status, started_on'));
    assert.deepEqual(data, [
      { name: 'Canal', budget: 100, status: 'active', started_on: '2024-01-01' },
      { name: 'Pier', budget: 5, status: 'done', started_on: '2024-01-01' },
    ]);
    await rows(db.schema('round2').from('projects').delete().in('name', ['Canal', 'Pier']));
  });

  test('without it absent keys are null (and a not-null column refuses them)', async () => {
    const { error, status } = await db.schema('round2').from('projects').insert([{ name: 'Quay' }, { name: 'Weir', budget: 5 }]);
    assert.equal(status, 400);
    assert.equal(error.code, '23502');
  });
});

describe('in-database configuration', () => {
  test('aggregates enabled by pgrst.db_aggregates_enabled', async () => {
    const data = await rows(db.schema('round2').from('projects').select('status, count(), budget.sum()').order('status'));
    assert.deepEqual(data, [{ status: 'active', count: 3, sum: 5500 }, { status: 'done', count: 1, sum: 2500 }]);
  });

  test("NOTIFY pgrst, 'reload config' applies a new pgrst.db_max_rows", async () => {
    const setMaxRows = (value) => {
      psql(`do $$ begin execute format('alter role authenticator in database %I ${value === null ? 'reset pgrst.db_max_rows' : `set pgrst.db_max_rows = ${value}`}', current_database()); end $$`);
      psql("notify pgrst, 'reload config'");
    };
    const count = async () => (await rows(db.schema('round2').from('projects').select('id'))).length;
    const until = async (want) => {
      const deadline = Date.now() + 10_000;
      let got = await count();
      while (got !== want && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        got = await count();
      }
      assert.equal(got, want);
    };
    assert.equal(await count(), 4);
    setMaxRows(2);
    try {
      await until(2);
    } finally {
      setMaxRows(null);
    }
    await until(4);
  });
});

describe('aggregates', () => {
  test('inside an embedding, with an alias and a cast', async () => {
    const data = await rows(db.schema('round2').from('clients').select('name, projects(total:budget.sum()::int, count())').order('id'));
    assert.deepEqual(data, [
      { name: 'Acme', projects: [{ total: 3500, count: 2 }] },
      { name: 'Umbrella', projects: [{ total: 500, count: 1 }] },
      { name: 'Idle', projects: [{ total: null, count: 0 }] },
    ]);
  });

  test('rel(count)', async () => {
    const data = await rows(db.schema('round2').from('clients').select('id, projects(count)').order('id'));
    assert.deepEqual(data, [{ id: 1, projects: [{ count: 2 }] }, { id: 2, projects: [{ count: 1 }] }, { id: 3, projects: [{ count: 0 }] }]);
  });

  test('grouped by a spread column', async () => {
    const data = await rows(db.schema('round2').from('projects').select('budget.sum(), ...clients(client:name)').eq('client_id', 1));
    assert.deepEqual(data, [{ sum: 3500, client: 'Acme' }]);
  });

  // PostgREST hoists the aggregates of a to-one spread into the parent's
  // grouping (hoistSpreadAggFunctions): tasks 2, 4, 5 are open, on
  // projects of 1000, 500, 500; tasks 1 and 3 are done, on 1000 and 2500.
  test('in a to-one spread, hoisted into the parent grouping', async () => {
    const data = await rows(db.schema('round2').from('tasks').select('done, ...projects(budget.sum())').order('done'));
    assert.deepEqual(data, [{ done: false, sum: 2000 }, { done: true, sum: 3500 }]);
  });

  test('in a to-one spread, with aliases, a cast and count()', async () => {
    const data = await rows(db.schema('round2').from('tasks').select('...projects(status, tasks:count(), total:budget.sum()::int)'));
    const byStatus = [...data].sort((a, b) => a.status.localeCompare(b.status));
    assert.deepEqual(byStatus, [{ status: 'active', tasks: 4, total: 3000 }, { status: 'done', tasks: 1, total: 2500 }]);
  });

  test('in nested to-one spreads, hoisted to the top', async () => {
    const data = await rows(db.schema('round2').from('tasks').select('...projects(...clients(client:name, tasks:count()))'));
    const byClient = [...data].sort((a, b) => a.client.localeCompare(b.client));
    assert.deepEqual(byClient, [{ client: 'Acme', tasks: 3 }, { client: 'Umbrella', tasks: 2 }]);
  });

  test('in a to-many spread: PGRST127', async () => {
    for (const select of ['name, ...projects(status, budget.sum())', 'name, ...projects(...clients(count()))']) {
      const { data, error, status } = await db.schema('round2').from('clients').select(select);
      assert.equal(status, 400);
      assert.equal(data, null);
      assert.deepEqual(error, {
        code: 'PGRST127',
        details: 'Aggregates are not implemented for one-to-many or many-to-many spreads.',
        hint: null,
        message: 'Feature not implemented',
      });
    }
  });
});

describe('Prefer: tx (db_tx_end from the database)', () => {
  test('tx=rollback answers as if committed, then keeps nothing', async () => {
    const res = await raw('/clients', {
      method: 'POST',
      headers: { 'Content-Profile': 'round2', 'Content-Type': 'application/json', Prefer: 'tx=rollback, return=representation' },
      body: JSON.stringify({ id: 50, name: 'Ghost' }),
    });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('preference-applied'), 'return=representation, tx=rollback');
    assert.deepEqual(await res.json(), [{ id: 50, name: 'Ghost' }]);
    assert.deepEqual(await rows(db.schema('round2').from('clients').select('id').eq('id', 50)), []);
  });

  test('deferred constraints are still checked', async () => {
    const res = await raw('/slots', {
      method: 'POST',
      headers: { 'Content-Profile': 'round2', 'Content-Type': 'application/json', Prefer: 'tx=rollback' },
      body: JSON.stringify({ id: 2, code: 'a' }),
    });
    assert.equal(res.status, 409);
    assert.equal((await res.json()).code, '23505');
  });
});

describe('overloaded functions', () => {
  test('resolved by argument names', async () => {
    assert.equal(await rows(db.schema('round2').rpc('pick', { a: 1, b: 2 })), 'two integers');
    assert.equal(await rows(db.schema('round2').rpc('pick', { b: true }, { get: true })), 'boolean');
  });

  test('PGRST203 lists the candidates in PostgREST order', async () => {
    const { error, status } = await db.schema('round2').rpc('pick', { a: 1 });
    assert.equal(status, 300);
    assert.deepEqual(error, {
      code: 'PGRST203',
      details: null,
      hint: 'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
      message: 'Could not choose the best candidate function between: round2.pick(a => text), round2.pick(a => integer), round2.pick(a => integer, b => integer)',
    });
  });

  test('a single unnamed json parameter takes the whole body', async () => {
    assert.deepEqual(await rows(db.schema('round2').rpc('raw', { x: [1, 2] })), { x: [1, 2] });
  });
});

describe('computed fields', () => {
  test('selected, filtered and ordered like columns', async () => {
    const data = await rows(db.schema('round2').from('projects').select('id, label, open_hours').like('label', '*(active)').order('open_hours', { ascending: false }).order('id').limit(2));
    assert.deepEqual(data, [{ id: 1, label: 'Bridge (active)', open_hours: 5 }, { id: 3, label: 'Road (active)', open_hours: 3 }]);
  });

  test('inside an embedding, with a JSON path', async () => {
    const data = await rows(db.schema('round2').from('projects').select('id, clients(info->>name)').eq('id', 3));
    assert.deepEqual(data, [{ id: 3, clients: { name: 'Umbrella' } }]);
  });
});

describe('second exposed schema', () => {
  test('reads it with its profile', async () => {
    assert.deepEqual(await rows(db.schema('round2_extra').from('notes').select('id, body').order('id')), [{ id: 1, body: 'first' }, { id: 2, body: 'second' }]);
  });
});
