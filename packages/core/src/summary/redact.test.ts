import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  containsSecret,
  createSecretVault,
  redactSecrets,
  restoreSecrets,
  withholdSecrets,
} from "./redact.js";

// Shapes of real credentials (none of these is a live one).
const secrets = {
  openai: "sk-proj-Abc123Def456Ghi789Jkl012Mno345Pqr678",
  openaiLegacy: "sk-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v2",
  anthropic: "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ-_xyzAA",
  awsKeyId: "AKIAIOSFODNN7EXAMPLE",
  awsSecret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  github: "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
  githubPat:
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
  slack: "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
  stripe: "sk_live_51H8abcdefghijklmnopqrstu",
  stripeRestricted: "rk_live_51H8abcdefghijklmnopqrstu",
  jwt: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
  bearer: "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA.opaque-token",
  urlPassword: "s3cr3t-Pa55word",
  quotedPassword: "correct horse battery staple",
  apiKeyAssignment: "a1b2c3d4e5f6a7b8c9d0",
  pemBody: "MIIEowIBAAKCAQEAuZkDsW0DCjKLy9YlB3nWa4Zt9PqZ0CrkQ1nVxYz",
};

const transcript = [
  `export OPENAI_API_KEY=${secrets.openai}`,
  `client = OpenAI(api_key="${secrets.openaiLegacy}")`,
  `ANTHROPIC_API_KEY: ${secrets.anthropic}`,
  `[default]\naws_access_key_id = ${secrets.awsKeyId}\naws_secret_access_key = ${secrets.awsSecret}`,
  `git remote set-url origin https://${secrets.github}@github.com/acme/app.git`,
  `GITHUB_TOKEN=${secrets.githubPat}`,
  `slack: ${secrets.slack}`,
  `stripe.api_key = '${secrets.stripe}' and ${secrets.stripeRestricted}`,
  `cookie session=${secrets.jwt}`,
  `curl -H 'Authorization: Bearer ${secrets.bearer}' https://api.example.com/v1/items`,
  `DATABASE_URL=postgres://app_user:${secrets.urlPassword}@db.internal:5432/app`,
  `{"username": "ana", "password": "${secrets.quotedPassword}"}`,
  `api_key=${secrets.apiKeyAssignment}`,
  `-----BEGIN RSA PRIVATE KEY-----\n${secrets.pemBody}\nAbCdEf0123456789==\n-----END RSA PRIVATE KEY-----`,
].join("\n");

describe("redactSecrets", () => {
  it("removes every kind of secret and restores the exact text", () => {
    const vault = createSecretVault();
    const redacted = redactSecrets(transcript, vault);
    for (const [kind, secret] of Object.entries(secrets)) {
      expect(redacted.includes(secret), `${kind} leaked`).toBe(false);
    }
    expect(redacted).toContain("[[SECRET_");
    expect(restoreSecrets(redacted, vault)).toBe(transcript);
  });

  it("keeps the text around a secret: the URL host, the variable name, the header name", () => {
    const redacted = redactSecrets(transcript, createSecretVault());
    expect(redacted).toContain("@db.internal:5432/app");
    expect(redacted).toContain("postgres://app_user:");
    expect(redacted).toContain("export OPENAI_API_KEY=");
    expect(redacted).toContain("Authorization: Bearer [[SECRET_");
    expect(redacted).toContain("https://api.example.com/v1/items");
  });

  it("gives the same secret the same placeholder across calls with one vault", () => {
    const vault = createSecretVault();
    const first = redactSecrets(`key ${secrets.openai}`, vault);
    const second = redactSecrets(`other text, then ${secrets.github} and ${secrets.openai}`, vault);
    const placeholder = first.slice(4);
    expect(placeholder).toMatch(/^\[\[SECRET_\d+\]\]$/);
    expect(second).toContain(placeholder);
    expect(second.split(placeholder).length).toBe(2);
    expect(second).not.toContain(secrets.github);
  });

  it("leaves ordinary engineering text alone", () => {
    const text = [
      "max_tokens: 1000, prompt_tokens=5321",
      "Edited src/auth/session.ts line 42; commit 3f9a2b7c1d; see https://github.com/acme/app/pull/17",
      "uuid 123e4567-e89b-12d3-a456-426614174000 at 10.0.0.12:8080",
      "The task-runner-background-worker finished.",
    ].join("\n");
    expect(redactSecrets(text, createSecretVault())).toBe(text);
  });

  it("does not redact its own placeholders again", () => {
    const vault = createSecretVault();
    const once = redactSecrets(transcript, vault);
    expect(redactSecrets(once, vault)).toBe(once);
  });

  it("restores placeholders the model repeats, and leaves unknown ones", () => {
    const vault = createSecretVault();
    const redacted = redactSecrets(`token=${secrets.apiKeyAssignment}`, vault);
    const placeholder = redacted.slice("token=".length);
    expect(
      restoreSecrets(`Use ${placeholder} twice: ${placeholder}; not [[SECRET_99]]`, vault),
    ).toBe(`Use ${secrets.apiKeyAssignment} twice: ${secrets.apiKeyAssignment}; not [[SECRET_99]]`);
  });

  it("never hands out a placeholder that the input already contains literally", () => {
    const vault = createSecretVault();
    const text = `docs mention [[SECRET_1]] and [[SECRET_2]]; key ${secrets.github}`;
    const redacted = redactSecrets(text, vault);
    expect(redacted).not.toContain(secrets.github);
    expect(restoreSecrets(redacted, vault)).toBe(text);
  });

  it("redacts a private key block cut short before its END line", () => {
    const text = `-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAMwAAAAtzc2gtZWQyNTUxOQ`;
    const redacted = redactSecrets(text, createSecretVault());
    expect(redacted).not.toContain("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ");
    expect(redacted).not.toContain("AAAAMwAAAAtzc2gtZWQyNTUxOQ");
  });

  it("restores a secret whose match took in the placeholder of another (fast-check counterexample)", () => {
    // The URL-password pattern runs after the key patterns and captures `api_key=[[SECRET_1]]`.
    const text = `https://u:api_key=${secrets.openai}@host`;
    const vault = createSecretVault();
    const redacted = redactSecrets(text, vault);
    expect(redacted).not.toContain(secrets.openai);
    expect(restoreSecrets(redacted, vault)).toBe(text);
  });

  it("round-trips any text exactly (property)", () => {
    const pieces = fc.oneof(
      fc.string(),
      fc.constantFrom(...Object.values(secrets)),
      fc.constantFrom(
        "api_key=",
        "password: ",
        "Authorization: Bearer ",
        "https://u:",
        "@host",
        "\n",
        " ",
        '"',
        "[[SECRET_1]]",
      ),
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 20 }), (parts) => {
        const text = parts.join("");
        const vault = createSecretVault();
        expect(restoreSecrets(redactSecrets(text, vault), vault)).toBe(text);
      }),
    );
  });

  it("never lets a self-identifying secret through, whatever surrounds it (property)", () => {
    // Secrets recognisable without context (an AWS secret key or a password needs its key name).
    const standalone = [
      secrets.openai,
      secrets.openaiLegacy,
      secrets.anthropic,
      secrets.awsKeyId,
      secrets.github,
      secrets.githubPat,
      secrets.slack,
      secrets.stripe,
      secrets.stripeRestricted,
      secrets.jwt,
    ];
    const filler = fc.string({ unit: fc.constantFrom(" ", "\n", "a", "=", ":", "/", ".", "-") });
    fc.assert(
      fc.property(filler, fc.constantFrom(...standalone), filler, (before, secret, after) => {
        const redacted = redactSecrets(`${before} ${secret} ${after}`, createSecretVault());
        expect(redacted.includes(secret)).toBe(false);
      }),
    );
  });
});

describe("withholdSecrets", () => {
  it("replaces every kind of secret by a pointer to where it is, and keeps the text around it", () => {
    const withheld = withholdSecrets(transcript, "seq:12");
    for (const [kind, secret] of Object.entries(secrets)) {
      expect(withheld.includes(secret), `${kind} leaked`).toBe(false);
    }
    expect(withheld).toContain("postgres://app_user:[redacted:seq:12]@db.internal:5432/app");
    expect(withheld).toContain("Authorization: Bearer [redacted:seq:12]");
    expect(withholdSecrets("key sk-proj-Abc123Def456Ghi789Jkl012Mno345Pqr678")).toBe(
      "key [redacted]",
    );
  });

  it("leaves pointers and ordinary text alone, so it can run again", () => {
    const once = withholdSecrets(transcript, "tool-call:call_1");
    expect(withholdSecrets(once, "seq:3")).toBe(once);
    expect(containsSecret(once)).toBe(false);
    const quoted = 'password: "[redacted:seq:3]"';
    expect(withholdSecrets(quoted, "seq:4")).toBe(quoted);
  });

  it("never leaves a self-identifying secret, and withholding twice changes nothing (property)", () => {
    const standalone = [
      secrets.openai,
      secrets.github,
      secrets.slack,
      secrets.jwt,
      secrets.awsKeyId,
    ];
    const filler = fc.string({
      unit: fc.constantFrom(" ", "\n", "a", "=", ":", "/", ".", "-", '"', "@", "["),
    });
    fc.assert(
      fc.property(filler, fc.constantFrom(...standalone), filler, (before, secret, after) => {
        const withheld = withholdSecrets(`${before} ${secret} ${after}`, "seq:1");
        expect(withheld.includes(secret)).toBe(false);
        expect(withholdSecrets(withheld, "seq:2")).toBe(withheld);
      }),
    );
  });
});
