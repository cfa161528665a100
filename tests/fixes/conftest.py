"""The fixture projects under projects/ have their own test suites, run by test_projects.py in
copies of them; the outer session must not collect them."""

collect_ignore_glob = ["projects/*"]
