import { describe } from 'vitest';
import { adapterCases } from './adapter-cases.ts';

// The clients whose user-level file is JSON in a shape shared with others (checked from their
// documentation: none of them runs from npm).

describe('Cline', () => {
  adapterCases('cline', {
    paths: {
      linux:
        '/home/ann/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
      darwin:
        '/Users/ann/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
      win32:
        'C:\\Users\\ann\\AppData\\Roaming\\Code\\User\\globalStorage\\saoudrizwan.claude-dev\\settings\\cline_mcp_settings.json',
    },
    entry: {
      type: 'streamableHttp',
      url: 'http://127.0.0.1:43117/mcp/alpha',
      headers: { Authorization: 'Bearer tok-cline' },
    },
    before: `{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "\${env:GH}" },
      "disabled": false,
      "autoApprove": []
    }
  }
}`,
  });
});

describe('Roo Code', () => {
  adapterCases('roo-code', {
    paths: {
      linux:
        '/home/ann/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json',
      darwin:
        '/Users/ann/Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json',
      win32:
        'C:\\Users\\ann\\AppData\\Roaming\\Code\\User\\globalStorage\\rooveterinaryinc.roo-cline\\settings\\mcp_settings.json',
    },
    entry: {
      type: 'streamable-http',
      url: 'http://127.0.0.1:43117/mcp/alpha',
      headers: { Authorization: 'Bearer tok-roo-code' },
    },
    before: '{\n  "mcpServers": {}\n}\n',
  });
});

describe('Kiro', () => {
  adapterCases('kiro', {
    paths: {
      linux: '/home/ann/.kiro/settings/mcp.json',
      darwin: '/Users/ann/.kiro/settings/mcp.json',
      win32: 'C:\\Users\\ann\\.kiro\\settings\\mcp.json',
    },
    entry: { url: 'http://127.0.0.1:43117/mcp/alpha', headers: { Authorization: 'Bearer tok-kiro' } },
    before: `{
  "mcpServers": {
    "fetch": {
      "command": "uvx",
      "args": ["mcp-server-fetch"],
      "disabled": false,
      "autoApprove": ["fetch"]
    }
  }
}
`,
  });
});

describe('Amazon Q Developer', () => {
  adapterCases('amazon-q', {
    paths: {
      linux: '/home/ann/.aws/amazonq/mcp.json',
      darwin: '/Users/ann/.aws/amazonq/mcp.json',
      win32: 'C:\\Users\\ann\\.aws\\amazonq\\mcp.json',
    },
    entry: {
      type: 'http',
      url: 'http://127.0.0.1:43117/mcp/alpha',
      headers: { Authorization: 'Bearer tok-amazon-q' },
    },
    before:
      '{\n  "mcpServers": {\n    "aws-docs": { "command": "uvx", "args": ["awslabs.aws-documentation-mcp-server@latest"] }\n  }\n}\n',
  });
});

describe('LM Studio', () => {
  adapterCases('lm-studio', {
    paths: {
      linux: '/home/ann/.lmstudio/mcp.json',
      darwin: '/Users/ann/.lmstudio/mcp.json',
      win32: 'C:\\Users\\ann\\.lmstudio\\mcp.json',
    },
    entry: { url: 'http://127.0.0.1:43117/mcp/alpha', headers: { Authorization: 'Bearer tok-lm-studio' } },
    before: '{\n  "mcpServers": {\n    "hf-mcp-server": { "url": "https://huggingface.co/mcp" }\n  }\n}\n',
  });
});
