import { describe, expect, it } from 'vitest';
import { JOB_CLAIMS, jobClaims, type JobFacts } from './claims.js';

const TOKEN = {
  issuer: 'https://ci.example.com',
  audience: ['sts.example.com'],
  issuedAt: 100,
  expires: 3700,
  jti: 'j-1',
};

function job(build: Partial<JobFacts['build']> = {}, fork = false): JobFacts {
  return {
    repo: {
      slug: 'acme/app',
      uid: '4711',
      namespace: 'acme',
      namespaceUid: '42',
      trusted: true,
      visibility: 'private',
    },
    build: {
      id: 9,
      number: 3,
      event: 'push',
      ref: 'refs/heads/main',
      after: 'abc123',
      source: 'main',
      target: 'main',
      deployTo: '',
      sender: 'octocat',
      authorLogin: 'author',
      ...build,
    },
    stage: { id: 17, name: 'deploy' },
    step: 'upload',
    fork,
  };
}

describe('the claims of a job’s token', () => {
  it('names the repository by slug and provider ids, the commit, the build, the stage and the step', () => {
    expect(jobClaims(job(), TOKEN)).toEqual({
      iss: 'https://ci.example.com',
      sub: 'repo:acme/app:ref:refs/heads/main',
      aud: 'sts.example.com',
      iat: 100,
      nbf: 100,
      exp: 3700,
      jti: 'j-1',
      repository: 'acme/app',
      repository_id: '4711',
      repository_owner: 'acme',
      repository_owner_id: '42',
      repository_visibility: 'private',
      ref: 'refs/heads/main',
      ref_type: 'branch',
      base_ref: '',
      head_ref: '',
      event: 'push',
      sha: 'abc123',
      build_number: 3,
      build_id: 9,
      pipeline: 'deploy',
      stage_id: 17,
      step: 'upload',
      trusted: true,
      fork: false,
      deploy_target: '',
      actor: 'octocat',
    });
    expect(Object.keys(jobClaims(job(), TOKEN))).toEqual([...JOB_CLAIMS]);
  });

  it('has GitHub’s subjects: environment for deployments, pull_request, else the ref', () => {
    const sub = (build: Partial<JobFacts['build']>) => jobClaims(job(build), TOKEN).sub;
    expect(sub({ event: 'promote', deployTo: 'production' })).toBe('repo:acme/app:environment:production');
    expect(sub({ event: 'rollback', deployTo: 'staging' })).toBe('repo:acme/app:environment:staging');
    expect(sub({ event: 'pull_request', ref: 'refs/pull/7/head' })).toBe('repo:acme/app:pull_request');
    expect(sub({ event: 'tag', ref: 'refs/tags/v1.0' })).toBe('repo:acme/app:ref:refs/tags/v1.0');
    expect(sub({ event: 'cron' })).toBe('repo:acme/app:ref:refs/heads/main');
  });

  it('says where a pull request comes from and goes, whether from a fork, and who started it', () => {
    const claims = jobClaims(
      job(
        { event: 'pull_request', ref: 'refs/pull/7/head', source: 'patch', target: 'main', sender: '' },
        true,
      ),
      TOKEN,
    );
    expect(claims).toMatchObject({
      ref_type: 'pull_request',
      base_ref: 'main',
      head_ref: 'patch',
      fork: true,
      actor: 'author',
    });
    expect(jobClaims(job({ event: 'tag', ref: 'refs/tags/v1.0' }), TOKEN).ref_type).toBe('tag');
    expect(jobClaims(job({ event: 'promote', deployTo: 'prod' }), TOKEN).deploy_target).toBe('prod');
  });

  it('gives one audience as a string and several as a list', () => {
    expect(jobClaims(job(), { ...TOKEN, audience: ['a', 'b'] }).aud).toEqual(['a', 'b']);
  });
});
