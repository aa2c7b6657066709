#!/usr/bin/env python3
"""Renders the plugin's element documentation and checks it.

    element-docs.py generate --plugin NAME --sources DIR --output DIR
                             [--root SRCDIR] [--inspect gst-inspect-1.0]
    element-docs.py check DIR

generate: asks gst-inspect-1.0 (with GST_PLUGIN_PATH pointing at the built
plugin) for the plugin's elements, their pad templates and properties, reads
the SECTION:element-NAME comment block of each element and the property doc
blocks (GstTypeName:property-name:) from the C files under --sources, and
writes one Markdown page per element plus index.md into --output. What is
missing (an element without a SECTION block, a property of the project's
without a doc block) is rendered as such and listed in problems.json.

check: fails when an element has no SECTION block, or a link inside the
pages does not resolve (a page, or a #fragment naming a heading or an
anchor of the page), or a property of the project's has no doc block.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import urllib.parse

# properties of the GStreamer base classes, documented upstream
UPSTREAM_PROPERTIES = {'name', 'parent', 'qos'}


def inspect(tool, what):
    env = dict(os.environ, GST_INSPECT_NO_COLORS='1', PAGER='cat')
    out = subprocess.run([tool, what], env=env, check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return out.splitlines()


def plugin_elements(tool, plugin):
    """The element names gst-inspect lists for @plugin"""
    names = []
    for line in inspect(tool, plugin):
        m = re.match(r'^  ([\w-]+): .+$', line)
        if m:
            names.append(m.group(1))
    if not names:
        sys.exit(f'element-docs: gst-inspect lists no element of {plugin} '
                 '(GST_PLUGIN_PATH?)')
    return names


def sections(lines):
    """gst-inspect output -> {section title: [lines]}"""
    res, title = {}, None
    for line in lines:
        m = re.match(r'^(\S.*):$|^(GObject)$', line)
        if m:
            title = m.group(1) or m.group(2)
            res[title] = []
        elif title and line.strip():
            res[title].append(line)
    return res


def parse_details(lines):
    res = {}
    for line in lines:
        m = re.match(r'^  (\S.*?)\s{2,}(.*)$', line)
        if m:
            res[m.group(1)] = m.group(2).strip()
    return res


def parse_hierarchy(lines):
    return ['GObject'] + [re.sub(r'^[\s+-]*', '', line).strip()
                          for line in lines]


def parse_templates(lines):
    templates, cur, in_caps = [], None, False
    for line in lines:
        m = re.match(r"^  (SINK|SRC) template: '(.+)'$", line)
        if m:
            cur = {'direction': m.group(1).lower(), 'name': m.group(2),
                   'availability': '', 'caps': []}
            templates.append(cur)
            in_caps = False
        elif cur is None:
            continue
        elif line.strip().startswith('Availability:'):
            cur['availability'] = line.split(':', 1)[1].strip()
        elif line.strip() == 'Capabilities:':
            in_caps = True
        elif in_caps and line.startswith('      '):
            cur['caps'].append(line[6:].rstrip())
        else:
            in_caps = False
    return templates


def parse_properties(lines):
    props, cur = [], None
    for line in lines:
        m = re.match(r'^  ([\w-]+)\s*: ?(.*)$', line)
        if m and not line.startswith('   '):
            cur = {'name': m.group(1), 'blurb': m.group(2).strip(),
                   'flags': '', 'type': '', 'default': '', 'extra': []}
            props.append(cur)
            continue
        if cur is None:
            continue
        text = line.strip()
        if text.startswith('flags:') and not cur['flags']:
            cur['flags'] = text.split(':', 1)[1].strip()
        elif not cur['type']:
            kind, _, default = text.partition(' Default: ')
            cur['type'] = kind.strip().rstrip('.')
            cur['default'] = default.strip()
        else:
            cur['extra'].append(text)
    return props


def inspect_element(tool, name):
    sec = sections(inspect(tool, name))
    return {
        'name': name,
        'details': parse_details(sec.get('Factory Details', [])),
        'plugin': parse_details(sec.get('Plugin Details', [])),
        'hierarchy': parse_hierarchy(sec.get('GObject', [])),
        'templates': parse_templates(sec.get('Pad Templates', [])),
        'properties': parse_properties(sec.get('Element Properties', [])),
    }


def comment_text(body):
    """The text of a /** ... */ block, without the leading ' * '"""
    lines = []
    for line in body.splitlines():
        lines.append(re.sub(r'^\s*\*( |$)', '', line).rstrip())
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return '\n'.join(lines)


def read_sources(src_dir, root):
    """SECTION blocks, property doc blocks and the property names the
    project's C files declare"""
    section_re = re.compile(r'/\*\*\s*\n\s*\* SECTION:element-([\w-]+)\s*\n'
                            r'(.*?)\*/', re.S)
    prop_re = re.compile(r'/\*\*\s*\n\s*\* (Gst\w+):([\w-]+):\s*\n(.*?)\*/',
                         re.S)
    spec_re = re.compile(r'g_param_spec_\w+\s*\(\s*"([\w-]+)"')
    result = {'sections': {}, 'props': {}, 'declared': set()}
    for folder, _, files in os.walk(src_dir):
        for f in sorted(files):
            if not f.endswith('.c'):
                continue
            path = os.path.join(folder, f)
            with open(path, encoding='utf-8') as fh:
                text = fh.read()
            rel = os.path.relpath(path, root)
            for m in section_re.finditer(text):
                body = comment_text(m.group(2))
                body = re.sub(r'^@\w+:.*\n?', '', body, flags=re.M).strip()
                result['sections'][m.group(1)] = (body, rel)
            for m in prop_re.finditer(text):
                result['props'][(m.group(1), m.group(2))] = \
                    comment_text(m.group(3))
            result['declared'].update(spec_re.findall(text))
    return result


def slug(title):
    """The anchor a Markdown renderer (GitHub style) gives a heading"""
    s = re.sub(r'[^\w\- ]', '', title.strip().lower())
    return s.replace(' ', '-')


def to_markdown(text, elem):
    """gtk-doc markup -> Markdown: |[ ]| code blocks, #Type, #Type:prop,
    headings one level down"""
    out, in_code = [], False
    for line in text.splitlines():
        if not in_code and line.lstrip().startswith('|['):
            out += ['', '```']
            rest = re.sub(r'^\|\[(<!--.*?-->)?', '', line.strip()).strip()
            if rest:
                out.append(rest)
            in_code = True
            continue
        if in_code and ']|' in line:
            before, after = line.split(']|', 1)
            if before.strip():
                out.append(before.rstrip())
            out += ['```', '']
            if after.strip():
                out.append(after.strip())
            in_code = False
            continue
        if in_code:
            out.append(line)
            continue
        if re.match(r'^#+ ', line):
            out.append('#' + line)
            continue

        def prop_ref(m):
            owner, prop = m.group(1), m.group(2)
            if owner in elem['hierarchy'] and \
                    any(p['name'] == prop for p in elem['properties']):
                return f'[`{prop}`](#{slug(prop)})'
            return f'`{owner}:{prop}`'

        line = re.sub(r'#(Gst\w+):([\w-]+)', prop_ref, line)
        line = re.sub(r'(?<![\w`#])#([A-Z]\w+)', r'`\1`', line)
        line = re.sub(r'(?<![\w`])%(TRUE|FALSE|NULL)\b', r'`\1`', line)
        line = re.sub(r'(?<![\w`])(\w+\(\))', r'`\1`', line)
        out.append(line)
    text = '\n'.join(out)
    text = re.sub(r'\n{3,}', '\n\n', text)
    return text.strip()


def property_md(prop, elem, src, problems):
    lines = [f'### {prop["name"]}', '']
    lines.append(f'> {prop["blurb"]}')
    lines.append('')
    lines.append('| | |')
    lines.append('|---|---|')
    lines.append(f'| Type | {prop["type"]} |')
    if prop['default']:
        lines.append(f'| Default | `{prop["default"]}` |')
    lines.append(f'| Flags | {prop["flags"]} |')
    values = [v for v in prop['extra'] if re.match(r'^\(\d+\):', v)]
    if values:
        lines.append('| Values | ' + '<br>'.join(
            '`' + re.sub(r'\s+', ' ', v) + '`' for v in values) + ' |')
    lines.append('')
    owners = [t for t in reversed(elem['hierarchy'])
              if (t, prop['name']) in src['props']]
    if owners:
        lines.append(to_markdown(src['props'][(owners[0], prop['name'])],
                                 elem))
        lines.append('')
    elif prop['name'] in src['declared']:
        problems['undocumented_properties'].append(
            f'{elem["name"]}:{prop["name"]}')
        lines.append('*No doc block (`' + elem['hierarchy'][-1] + ':' +
                     prop['name'] + ':`) in the sources yet.*')
        lines.append('')
    return lines


def element_md(elem, src, elements, problems):
    d = elem['details']
    name = elem['name']
    lines = [f'# {name}', '']
    lines.append(f'**{d.get("Long-name", name)}** ({d.get("Klass", "")}): '
                 f'{d.get("Description", "")}')
    lines.append('')
    lines.append(f'Plugin `{elem["plugin"].get("Name", "")}` '
                 f'{elem["plugin"].get("Version", "")}; type '
                 f'`{elem["hierarchy"][-1]}` (' +
                 ' → '.join(f'`{t}`' for t in elem['hierarchy'][3:]) +
                 '). [All elements](index.md)')
    lines += ['', '## Description', '']
    if name in src['sections']:
        body, origin = src['sections'][name]
        lines.append(to_markdown(body, elem))
        lines += ['', f'(From the SECTION:element-{name} block of '
                  f'`{origin}`.)']
    else:
        problems['missing_sections'].append(name)
        lines.append(f'*No SECTION:element-{name} block in the sources.*')
    lines += ['', '## Pad templates', '']
    for t in elem['templates']:
        lines.append(f'### {t["name"]}')
        lines.append('')
        lines.append(f'{t["direction"].upper()}, {t["availability"]}')
        lines += ['', '```'] + t['caps'] + ['```', '']
    lines += ['## Properties', '']
    own = [p for p in elem['properties']
           if p['name'] not in UPSTREAM_PROPERTIES]
    for p in own:
        lines += property_md(p, elem, src, problems)
    upstream = [p['name'] for p in elem['properties']
                if p['name'] in UPSTREAM_PROPERTIES]
    if upstream:
        lines.append('Inherited from the GStreamer base classes: ' +
                     ', '.join(f'`{n}`' for n in upstream) + '.')
        lines.append('')
    others = [e for e in elements if e != name]
    if others:
        lines += ['## See also', '']
        lines += [f'- [{e}]({e}.md)' for e in others]
        lines.append('')
    return '\n'.join(lines)


def generate(args):
    elements = plugin_elements(args.inspect, args.plugin)
    src = read_sources(args.sources, args.root)
    problems = {'missing_sections': [], 'undocumented_properties': []}
    os.makedirs(args.output, exist_ok=True)
    index = [f'# The {args.plugin} plugin\'s elements', '',
             'Generated from the built plugin (gst-inspect-1.0) and the '
             'doc comments of its sources.', '']
    for name in elements:
        elem = inspect_element(args.inspect, name)
        with open(os.path.join(args.output, name + '.md'), 'w',
                  encoding='utf-8') as fh:
            fh.write(element_md(elem, src, elements, problems) + '\n')
        index.append(f'- [{name}]({name}.md): '
                     f'{elem["details"].get("Description", "")}')
    with open(os.path.join(args.output, 'index.md'), 'w',
              encoding='utf-8') as fh:
        fh.write('\n'.join(index) + '\n')
    with open(os.path.join(args.output, 'problems.json'), 'w',
              encoding='utf-8') as fh:
        json.dump(problems, fh, indent=1)
    return 0


def anchors(path):
    with open(path, encoding='utf-8') as fh:
        text = fh.read()
    text = re.sub(r'```.*?```', '', text, flags=re.S)
    res = {slug(m.group(1)) for m in re.finditer(r'^#+ (.+)$', text, re.M)}
    res.update(re.findall(r'<a (?:id|name)="([^"]+)"', text))
    return res


def broken_links(root):
    broken, n = [], 0
    for f in sorted(os.listdir(root)):
        if not f.endswith('.md'):
            continue
        path = os.path.join(root, f)
        with open(path, encoding='utf-8') as fh:
            text = re.sub(r'```.*?```', '', fh.read(), flags=re.S)
        for target in re.findall(r'\]\(([^)\s]+)\)', text):
            url = urllib.parse.urlsplit(target)
            if url.scheme or url.netloc:
                continue
            n += 1
            dest = path
            if url.path:
                dest = os.path.normpath(os.path.join(root, url.path))
                if not os.path.isfile(dest):
                    broken.append(f'{f}: {target}: no such page')
                    continue
            if url.fragment and dest.endswith('.md') and \
                    url.fragment not in anchors(dest):
                broken.append(f'{f}: {target}: no such heading or anchor')
    return broken, n


def check(args):
    with open(os.path.join(args.dir, 'problems.json'), encoding='utf-8') as fh:
        problems = json.load(fh)
    failed = False
    for name in problems['missing_sections']:
        print(f'element-docs: {name}: no SECTION:element-{name} block')
        failed = True
    for prop in problems['undocumented_properties']:
        print(f'element-docs: {prop}: no property doc block')
        failed = True
    broken, n = broken_links(args.dir)
    for b in broken:
        print(f'element-docs: broken link: {b}')
    failed |= bool(broken)
    print(f'element-docs: {n} links checked, {len(broken)} broken; '
          f'{len(problems["missing_sections"])} elements without a SECTION '
          f'block; {len(problems["undocumented_properties"])} properties '
          'without a doc block')
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='command', required=True)
    g = sub.add_parser('generate')
    g.add_argument('--plugin', required=True)
    g.add_argument('--sources', required=True)
    g.add_argument('--output', required=True)
    g.add_argument('--root', default='.',
                   help='the source tree, which the pages name files from')
    g.add_argument('--inspect', default='gst-inspect-1.0')
    c = sub.add_parser('check')
    c.add_argument('dir')
    args = parser.parse_args()
    return generate(args) if args.command == 'generate' else check(args)


if __name__ == '__main__':
    sys.exit(main())
