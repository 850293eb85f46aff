#!/usr/bin/env bash
# Query plans of the list and search queries on the data set a `--keep DIR` benchmark run left:
#   bash examples/bench/explain.sh DIR [postgres-url]
# SQLite: EXPLAIN QUERY PLAN and the time of each query (sqlite3's .timer); PostgreSQL:
# EXPLAIN (ANALYZE, BUFFERS) on the kept database `registry_bench_kept`. Prints Markdown.
set -euo pipefail
dir="${1:?usage: explain.sh DIR [postgres-url]}"
pg="${2:-postgres://postgres@127.0.0.1:5432/registry_bench_kept}"
db="$dir/sqlite/registry.db"
today="$(date -u +%F)"

# name | SQLite query | PostgreSQL query (empty: same as SQLite)
queries=(
"Whole list, page 2,500 of 20 (one statement: the kept total, the page's ranks, their views)|WITH t AS MATERIALIZED (SELECT COALESCE((SELECT CAST(SUM(live) AS BIGINT) FROM facility_counts), 0) AS total) SELECT f.id, f.address_json, f.users_json, f.isotopes_json, f.practices_json, f.image_kinds, t.total FROM t LEFT JOIN facilities f ON f.live_rank BETWEEN t.total - 49980 - 20 + 1 AND t.total - 49980 LEFT JOIN facility_groups g ON g.id = f.group_id ORDER BY f.live_rank DESC|"
"Department list, last page (ranks)|SELECT id FROM facilities WHERE department = 'Radiodiagnóstico' AND department_rank BETWEEN 1 AND 20 ORDER BY department_rank DESC|"
"Search total, a name (\`clinica 3399\`)|SELECT COUNT(*) FROM (SELECT facility_id AS id, search_text FROM facility_search WHERE search_text LIKE '%clinica 3399%') f|SELECT COUNT(*) FROM facility_search f WHERE f.search_text LIKE '%clinica 3399%' ESCAPE '\\'"
"Search page, a name|SELECT f.id FROM (SELECT facility_id AS id, search_text FROM facility_search WHERE search_text LIKE '%clinica 3399%') f ORDER BY f.id DESC LIMIT 20 OFFSET 0|SELECT f.id FROM facility_search f WHERE f.search_text LIKE '%clinica 3399%' ESCAPE '\\' ORDER BY f.id DESC LIMIT 20 OFFSET 0"
"Search total, a city (\`sao paulo\`, 1 in 8 facilities)|SELECT COUNT(*) FROM (SELECT facility_id AS id, search_text FROM facility_search WHERE search_text LIKE '%sao paulo%') f|SELECT COUNT(*) FROM facility_search f WHERE f.search_text LIKE '%sao paulo%' ESCAPE '\\'"
"Filtered list (state), total|SELECT COUNT(*) FROM facilities f WHERE f.archived_at IS NULL AND EXISTS (SELECT 1 FROM facility_addresses a WHERE a.facility_id = f.id AND a.state_key = 'sp')|"
"Filtered list (state), page 100|SELECT f.id FROM facilities f WHERE f.archived_at IS NULL AND EXISTS (SELECT 1 FROM facility_addresses a WHERE a.facility_id = f.id AND a.state_key = 'sp') ORDER BY f.id DESC LIMIT 20 OFFSET 1980|"
"Overdue total (kept per-day counts)|SELECT COALESCE(SUM(l.pairs), 0) FROM qc_listed_due_days l WHERE (l.next_due < '$today')|SELECT CAST(COALESCE(SUM(l.pairs), 0) AS BIGINT) FROM qc_listed_due_changes l WHERE (l.next_due < DATE '$today')"
"Overdue page 1|SELECT l.equipment_id, t.name FROM qc_last l CROSS JOIN equipment e CROSS JOIN test_types t CROSS JOIN facilities f CROSS JOIN equipment_types et WHERE e.archived_at IS NULL AND f.archived_at IS NULL AND e.active = TRUE AND l.listed = TRUE AND (l.next_due < '$today') AND e.id = l.equipment_id AND t.id = l.test_type_id AND t.equipment_type_id = e.equipment_type_id AND f.id = e.facility_id AND et.id = e.equipment_type_id ORDER BY l.next_due, e.id, t.name, t.id LIMIT 20 OFFSET 0|SELECT l.equipment_id, t.name FROM qc_last l CROSS JOIN equipment e CROSS JOIN test_types t CROSS JOIN facilities f CROSS JOIN equipment_types et WHERE e.archived_at IS NULL AND f.archived_at IS NULL AND e.active = TRUE AND l.listed = TRUE AND (l.next_due < DATE '$today') AND e.id = l.equipment_id AND t.id = l.test_type_id AND t.equipment_type_id = e.equipment_type_id AND f.id = e.facility_id AND et.id = e.equipment_type_id ORDER BY l.next_due, e.id, t.name, t.id LIMIT 20 OFFSET 0"
)

for entry in "${queries[@]}"; do
    IFS='|' read -r name lite postgres <<<"$entry"
    postgres="${postgres:-$lite}"
    echo "#### $name"
    echo
    echo '```'
    echo "-- SQLite"
    { sqlite3 -readonly "$db" "EXPLAIN QUERY PLAN $lite" 2>&1 || true; } | sed 's/^/  /'
    sqlite3 -readonly "$db" ".timer on" "$lite" 2>&1 | { grep "^Run Time" || true; } | sed "s/^/  /"
    echo "-- PostgreSQL"
    { psql "$pg" -qAt -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) $postgres" 2>&1 || true; } | sed 's/^/  /'
    echo '```'
    echo
done
