// rest and rpc, round 3 (issue 19) through supabase-js: computed
// relationships (functions of a table's row returning rows), computed fields
// on the rows writes and calls return, ambiguous embeddings and hinting, and
// the EXPLAIN media type (Accept: application/vnd.pgrst.plan) turned on by
// PGRST_DB_PLAN_ENABLED and off again by pgrst.db_plan_enabled in the
// database. Fixture: compat/fixtures/rest-round3.sql (schema round3). The
// expectations are PostgREST 14's answers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { startStack } from '../harness/stack.mjs';
import { restHelpers } from '../harness/rest.mjs';

const perService = (name, value) => ({ [`KEJANEST_REST_${name}`]: value, [`KEJANEST_RPC_${name}`]: value });

let stack;
let db;
before(async () => {
  stack = await startStack({
    env: { ...perService('PGRST_DB_SCHEMAS', 'round3'), ...perService('PGRST_DB_PLAN_ENABLED', 'true'), ...perService('PGRST_DB_TX_END', 'commit-allow-override') },
    sql: ['fixtures/rest-round3.sql'],
  });
  db = stack.client(stack.serviceRoleKey).schema('round3');
});
after(async () => { await stack?.stop(); });

const { psql, raw, rows } = restHelpers(() => stack);

/** Polls fn until it returns want (or 10 s pass), then asserts. */
async function until(fn, want) {
  const deadline = Date.now() + 10_000;
  let got = await fn();
  while (JSON.stringify(got) !== JSON.stringify(want) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    got = await fn();
  }
  assert.deepEqual(got, want);
}

describe('computed relationships', () => {
  test('to-many, with filters, order and limit inside', async () => {
    const data = await rows(db.from('clients').select('id, computed_projects(id, name)')
      .gt('computed_projects.id', 1).order('id', { referencedTable: 'computed_projects', ascending: false })
      .limit(1, { referencedTable: 'computed_projects' }).order('id'));
    assert.deepEqual(data, [
      { id: 1, computed_projects: [{ id: 2, name: 'Windows 10' }] },
      { id: 2, computed_projects: [{ id: 4, name: 'OSX' }] },
      { id: 3, computed_projects: [] },
    ]);
  });

  test('to-one: a single row, or setof declared rows 1', async () => {
    const data = await rows(db.from('projects').select('id, computed_client(name), first_task(name)').in('id', [1, 3]).order('id'));
    assert.deepEqual(data, [
      { id: 1, computed_client: { name: 'Microsoft' }, first_task: { name: 'Design w7' } },
      { id: 3, computed_client: { name: 'Apple' }, first_task: { name: 'Design IOS' } },
    ]);
  });

  test('!inner filters the parent, and counts follow it', async () => {
    const { data, count, error } = await db.from('clients').select('id, computed_projects!inner(id)', { count: 'exact' })
      .like('computed_projects.name', 'Windows*');
    assert.equal(error, null);
    assert.equal(count, 1);
    assert.deepEqual(data, [{ id: 1, computed_projects: [{ id: 1 }, { id: 2 }] }]);
  });

  test('a function named after a table overrides the detected relationship', async () => {
    // round3.clients(projects) returns the client with the next id, rows 1.
    const data = await rows(db.from('projects').select('id, clients(id)').eq('id', 1));
    assert.deepEqual(data, [{ id: 1, clients: { id: 2 } }]);
  });

  test("NOTIFY pgrst, 'reload schema' picks up a new one", async () => {
    psql(`create function round3.done_tasks(round3.projects) returns setof round3.tasks language sql stable
            as $$ select * from round3.tasks where project_id = $1.id and done order by id $$;
          grant execute on function round3.done_tasks(round3.projects) to service_role;
          notify pgrst, 'reload schema'`);
    await until(async () => {
      const { data } = await db.from('projects').select('id, done_tasks(id)').eq('id', 2);
      return data;
    }, [{ id: 2, done_tasks: [{ id: 4 }] }]);
  });
});

describe('computed fields and relationships on returned rows', () => {
  test('insert with return=representation', async () => {
    const data = await rows(db.from('projects').insert({ id: 10, name: 'Surface', client_id: 1 }).select('id, label, computed_client(name)'));
    assert.deepEqual(data, [{ id: 10, label: 'Surface #10', computed_client: { name: 'Microsoft' } }]);
  });

  test('update and upsert', async () => {
    assert.deepEqual(await rows(db.from('projects').update({ name: 'Win7' }).eq('id', 1).select('label')), [{ label: 'Win7 #1' }]);
    assert.deepEqual(await rows(db.from('projects').upsert({ id: 1, name: 'Windows 7', client_id: 1 }).select('label, computed_client(id)')),
      [{ label: 'Windows 7 #1', computed_client: { id: 1 } }]);
  });

  test('rpc results of a table type', async () => {
    const data = await rows(db.rpc('client_projects', { cid: 2 }).select('id, label, computed_client(name)'));
    assert.deepEqual(data, [
      { id: 3, label: 'IOS #3', computed_client: { name: 'Apple' } },
      { id: 4, label: 'OSX #4', computed_client: { name: 'Apple' } },
    ]);
  });
});

describe('ambiguous embeddings and hints', () => {
  test('PGRST201 lists the candidates', async () => {
    const { error, status } = await db.from('messages').select('users(name)');
    assert.equal(status, 300);
    assert.deepEqual(error, {
      code: 'PGRST201',
      details: [
        { cardinality: 'many-to-one', embedding: 'messages with users', relationship: 'messages_recipient_fkey using messages(recipient) and users(id)' },
        { cardinality: 'many-to-one', embedding: 'messages with users', relationship: 'messages_sender_fkey using messages(sender) and users(id)' },
      ],
      hint: "Try changing 'users' to one of the following: 'users!messages_recipient_fkey', 'users!messages_sender_fkey'. Find the desired relationship in the 'details' key.",
      message: "Could not embed because more than one relationship was found for 'messages' and 'users'",
    });
  });

  test('hints by constraint and by column, !inner and !left', async () => {
    const data = await rows(db.from('messages')
      .select('id, from:users!messages_sender_fkey(name), to:users!recipient!inner(name)').order('id'));
    assert.deepEqual(data, [
      { id: 1, from: { name: 'Ann' }, to: { name: 'Bob' } },
      { id: 2, from: { name: 'Bob' }, to: { name: 'Ann' } },
      { id: 3, from: { name: 'Ann' }, to: { name: 'Bob' } },
    ]);
    const sent = await rows(db.from('users').select('name, messages!sender!left(id)').eq('id', 2));
    assert.deepEqual(sent, [{ name: 'Bob', messages: [{ id: 2 }] }]);
  });

  test('a hint that matches nothing is PGRST200', async () => {
    const { error, status } = await db.from('messages').select('users!nope(name)');
    assert.equal(status, 400);
    assert.deepEqual(error, {
      code: 'PGRST200',
      details: "Searched for a foreign key relationship between 'messages' and 'users' using the hint 'nope' in the schema 'round3', but no matches were found.",
      hint: null,
      message: "Could not find a relationship between 'messages' and 'users' in the schema cache",
    });
  });
});

describe('Accept: application/vnd.pgrst.plan', () => {
  const planOf = (path, accept, init = {}) => raw(path, { ...init, headers: { 'Accept-Profile': 'round3', 'Content-Profile': 'round3', Accept: accept, ...(init.headers ?? {}) } });

  test('JSON plan of a read, through supabase-js explain()', async () => {
    const { data, error } = await db.from('projects').select('id, computed_client(name)').explain({ format: 'json', analyze: true });
    assert.equal(error, null);
    assert.ok(Array.isArray(data) && data[0].Plan, JSON.stringify(data));
    assert.equal(typeof data[0]['Execution Time'], 'number');
  });

  test('text plan with its Content-Type', async () => {
    const res = await planOf('/projects?select=id&id=eq.1', 'application/vnd.pgrst.plan; for="application/json"; options=verbose');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/vnd.pgrst.plan+text; for="application/json"; options=verbose; charset=utf-8');
    const text = await res.text();
    assert.match(text, /Output:/);
  });

  test('a write explained with analyze runs; tx=rollback undoes it', async () => {
    const res = await planOf('/tasks', 'application/vnd.pgrst.plan+json; options=analyze', {
      method: 'POST', body: JSON.stringify({ id: 99, name: 'Explained', project_id: 1 }),
      headers: { 'Content-Type': 'application/json', Prefer: 'tx=rollback' },
    });
    assert.equal(res.status, 200);
    const plan = await res.json();
    assert.equal(plan[0].Plan['Node Type'], 'Aggregate');
    assert.equal(psql('select count(*) from round3.tasks where id = 99'), '0');
  });

  test('an rpc call explained', async () => {
    const res = await planOf('/rpc/client_projects?cid=1', 'application/vnd.pgrst.plan+json');
    assert.equal(res.status, 200);
    assert.ok((await res.json())[0].Plan);
  });

  test('pgrst.db_plan_enabled = false in the database turns it off: 406 PGRST107', async () => {
    const set = (value) => {
      psql(`do $$ begin execute format('alter role authenticator in database %I ${value === null ? 'reset pgrst.db_plan_enabled' : `set pgrst.db_plan_enabled = ${value}`}', current_database()); end $$`);
      psql("notify pgrst, 'reload config'");
    };
    const status = async () => (await planOf('/projects', 'application/vnd.pgrst.plan+json')).status;
    set('false');
    try {
      await until(status, 406);
      const res = await planOf('/projects', 'application/vnd.pgrst.plan+json');
      assert.deepEqual(await res.json(), {
        code: 'PGRST107', details: null, hint: null,
        message: 'None of these media types are available: application/vnd.pgrst.plan+json; for="application/json"',
      });
    } finally {
      set(null);
    }
    await until(status, 200);
  });
});

describe('Accept: application/geo+json', () => {
  // The handler is PostgREST's (ST_AsGeoJSON over each row). Before PostGIS
  // is created in the database PostgREST answers the missing function's
  // error, as we do; with it, a FeatureCollection whose properties are the
  // other columns. .ci/run installs Debian's PostGIS for the server.
  const geo = (query) => raw(`/projects?${query}`, { headers: { 'Accept-Profile': 'round3', Accept: 'application/geo+json' } });

  test('without PostGIS: the missing function, as PostgREST answers', async () => {
    const res = await geo('select=id,name&id=eq.1');
    assert.equal(res.status, 404);
    const body = await res.json();
    assert.equal(body.code, '42883');
    assert.equal(body.message, 'function st_asgeojson(record) does not exist');
  });

  test('with PostGIS: a FeatureCollection, the other columns as properties', async () => {
    assert.equal(psql("select count(*) from pg_available_extensions where name = 'postgis'"), '1',
      'PostGIS is not installed for this PostgreSQL (.ci/run installs postgresql-<major>-postgis-3)');
    psql('create extension if not exists postgis');
    psql("alter table round3.projects add column if not exists site geometry(Point, 4326) default 'SRID=4326;POINT(36.8 -1.3)'; notify pgrst, 'reload schema'");
    await until(async () => (await geo('select=id,site&id=eq.1')).json(), {
      type: 'FeatureCollection',
      features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [36.8, -1.3] }, properties: { id: 1 } }],
    });
    // No rows: an empty collection, not null.
    const empty = await geo('select=id,site&id=eq.-1');
    assert.equal(empty.status, 200);
    assert.match(empty.headers.get('content-type'), /^application\/geo\+json/);
    assert.deepEqual(await empty.json(), { type: 'FeatureCollection', features: [] });
  });
});

describe('in-database db_schemas and jwt_role_claim_key', () => {
  /** Sets (or, with null, resets) the login role's pgrst.<name> and reloads. */
  const setting = (name, value) => {
    psql(`do $$ begin execute format('alter role authenticator in database %I ${value === null ? `reset pgrst.${name}` : `set pgrst.${name} = %L`}', current_database()${value === null ? '' : `, '${value}'`}); end $$`);
    psql("notify pgrst, 'reload config'");
  };
  const hs256 = (claims) => {
    const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
    return `${input}.${createHmac('sha256', stack.jwtSecret).update(input).digest('base64url')}`;
  };

  test('pgrst.db_schemas exposes another schema after a reload', async () => {
    const status = async () => (await raw('/clients?select=id&limit=1', { headers: { 'Accept-Profile': 'round3_more' } })).status;
    psql(`create schema round3_more; grant usage on schema round3_more to service_role;
          create table round3_more.clients (id int primary key); grant select on round3_more.clients to service_role`);
    assert.equal(await status(), 406);
    setting('db_schemas', 'round3, round3_more');
    try {
      await until(status, 200);
    } finally {
      setting('db_schemas', null);
    }
    await until(status, 406);
  });

  test('pgrst.jwt_role_claim_key reads the role from another claim', async () => {
    const token = hs256({ role: 'anon', app: { roles: ['viewer', 'service_role'] }, exp: Math.floor(Date.now() / 1000) + 600 });
    const whoami = async () => {
      const res = await fetch(`${stack.url}/rest/v1/messages?select=id&limit=1`, {
        headers: { apikey: stack.anonKey, Authorization: `Bearer ${token}`, 'Accept-Profile': 'round3' },
      });
      return res.headers.get('content-range');
    };
    // As anon (the role claim) the table is readable too: tell the roles
    // apart by the count service_role may see only.
    psql('revoke select on round3.messages from anon');
    try {
      assert.equal(await whoami(), null);
      setting('jwt_role_claim_key', '.app.roles[1]');
      await until(whoami, '0-0/*');
    } finally {
      setting('jwt_role_claim_key', null);
      psql('grant select on round3.messages to anon');
    }
  });
});
