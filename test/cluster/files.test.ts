// Files in a cluster with S3 storage: an upload through one front is served through another
// (each front streams from the same bucket; the realm's worker checks access).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { requireRedis, TestCluster, type ClusterClient } from '../helpers/cluster.js';
import { binaryRequest, multipart, startS3, S3_BUCKET } from '../api/files-helpers.js';

let s3: Awaited<ReturnType<typeof startS3>>;
let cluster: TestCluster;
let owner: ClusterClient;
const subdomain = 'clusterfiles';

beforeAll(async () => {
  await requireRedis();
  s3 = await startS3();
  cluster = await TestCluster.start({
    fronts: 2,
    workers: ['w1'],
    env: {
      S3_UPLOADS_BUCKET: S3_BUCKET, S3_ENDPOINT_URL: s3.endpoint, S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER', S3_FORCE_PATH_STYLE: 'true',
    },
  });
  owner = await cluster.newRealm(subdomain);
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
  await s3?.close();
});

const auth = () => 'Basic ' + Buffer.from(`${owner.email}:${owner.apiKey}`).toString('base64');

it('an upload through one front is downloaded through another', async () => {
  const [a, b] = cluster.fronts;
  const data = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 256));
  const { body, contentType } = multipart([{ name: 'file', filename: 'report.bin', contentType: 'application/octet-stream', data }]);
  const up = await binaryRequest(a!.port, {
    method: 'POST', path: '/api/v1/user_uploads', host: `${subdomain}.localhost:${a!.port}`, body,
    headers: { Authorization: auth(), 'Content-Type': contentType, 'Content-Length': String(body.length) },
  });
  expect(up.status, up.body.toString()).toBe(200);
  const got = await binaryRequest(b!.port, { method: 'GET', path: up.json.url, host: `${subdomain}.localhost:${b!.port}`, headers: { Authorization: auth() } });
  expect(got.status).toBe(200);
  expect(got.body.equals(data)).toBe(true);
  const anonymous = await binaryRequest(b!.port, { method: 'GET', path: up.json.url, host: `${subdomain}.localhost:${b!.port}` });
  expect(anonymous.status).toBe(401);
});
