-- Applies a quick fix from headless Neovim (0.7+): `vim.lsp.buf.code_action` on an unused
-- import, the action picked by title through `vim.ui.select` (what a user's menu does), the
-- buffer edited and the diagnostic gone. Exits 0 on success.
-- Environment: SEXTANT_BIN (the binary), SEXTANT_ROOT (a workspace holding unused.py).

local function check(cond, message)
  if not cond then
    error(message, 2)
  end
end

local function run()
  local bin, root = os.getenv("SEXTANT_BIN"), os.getenv("SEXTANT_ROOT")
  local client_id = vim.lsp.start_client({ name = "sextant", cmd = { bin, "lsp" }, root_dir = root })
  check(client_id, "the client did not start")

  vim.cmd("edit " .. root .. "/unused.py")
  vim.lsp.buf_attach_client(0, client_id)
  check(vim.wait(10000, function() return #vim.diagnostic.get(0) == 2 end, 20), "no diagnostics for unused.py")

  -- The menu: the items are `{ client_id, action }` up to Neovim 0.9, `{ action = … }` after.
  local offered = {}
  vim.ui.select = function(items, _, on_choice)
    local chosen
    for _, item in ipairs(items) do
      local action = item.action or item[2]
      table.insert(offered, action.title)
      if action.title == "Remove unused import 'os'" then
        chosen = item
      end
    end
    on_choice(chosen)
  end

  -- The cursor on `os` (row 1, byte column 8).
  vim.api.nvim_win_set_cursor(0, { 1, 8 })
  vim.lsp.buf.code_action()
  local expected = { "import sys", "import json", "print(sys)" }
  local edited = vim.wait(10000, function()
    return vim.deep_equal(vim.api.nvim_buf_get_lines(0, 0, -1, false), expected)
  end, 20)
  check(edited, "the buffer was not edited; offered: " .. vim.inspect(offered)
    .. "; lines: " .. vim.inspect(vim.api.nvim_buf_get_lines(0, 0, -1, false)))
  -- The server saw the edit: only `json` is left unused.
  check(vim.wait(10000, function() return #vim.diagnostic.get(0) == 1 end, 20),
    "diagnostics after the fix: " .. vim.inspect(vim.diagnostic.get(0)))
  check(vim.diagnostic.get(0)[1].message == "'json' imported but unused", vim.inspect(vim.diagnostic.get(0)))

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
