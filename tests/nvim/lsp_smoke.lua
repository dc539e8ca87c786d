-- Drives `sextant lsp` from headless Neovim (0.7+): diagnostics appear and clear after an
-- incremental edit, document and workspace symbols, shutdown. Exits 0 on success.
-- Environment: SEXTANT_BIN (the binary), SEXTANT_ROOT (a workspace holding broken.py).

local function check(cond, message)
  if not cond then
    error(message, 2)
  end
end

local function run()
  local bin, root = os.getenv("SEXTANT_BIN"), os.getenv("SEXTANT_ROOT")
  local client_id = vim.lsp.start_client({ name = "sextant", cmd = { bin, "lsp" }, root_dir = root })
  check(client_id, "the client did not start")

  vim.cmd("edit " .. root .. "/broken.py")
  vim.lsp.buf_attach_client(0, client_id)

  check(vim.wait(10000, function() return #vim.diagnostic.get(0) == 1 end, 20), "no diagnostic for broken.py")
  local d = vim.diagnostic.get(0)[1]
  check(d.message == "missing `)`", "unexpected message: " .. d.message)
  check(d.lnum == 0 and d.col == 6, "unexpected position " .. d.lnum .. ":" .. d.col)

  -- An incremental edit that fixes the file: insert ")" at line 0, column 6.
  vim.api.nvim_buf_set_text(0, 0, 6, 0, 6, { ")" })
  check(vim.wait(10000, function() return #vim.diagnostic.get(0) == 0 end, 20), "the diagnostic was not cleared")

  local params = { textDocument = vim.lsp.util.make_text_document_params() }
  local responses = vim.lsp.buf_request_sync(0, "textDocument/documentSymbol", params, 5000)
  local symbols = responses and responses[client_id] and responses[client_id].result
  check(symbols and #symbols == 2, "documentSymbol: " .. vim.inspect(responses))
  check(symbols[1].name == "f" and symbols[2].name == "Greeter", vim.inspect(symbols))
  check(symbols[2].children[1].name == "hello", vim.inspect(symbols))

  responses = vim.lsp.buf_request_sync(0, "workspace/symbol", { query = "helper" }, 5000)
  local found = responses and responses[client_id] and responses[client_id].result
  check(found and #found == 1 and found[1].name == "helper_function", "workspace/symbol: " .. vim.inspect(responses))

  vim.lsp.stop_client(client_id)
  check(vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20), "the server did not stop")
end

local ok, err = xpcall(run, debug.traceback)
if ok then
  vim.cmd("qall!")
else
  io.stderr:write("FAILED: " .. tostring(err) .. "\n")
  vim.cmd("cquit! 1")
end
