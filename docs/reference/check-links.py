#!/usr/bin/env python3
"""Checks that every link inside a generated HTML tree resolves.

    check-links.py DIR

Follows href and src attributes of every .html file under DIR. A link to
another file must name a file under DIR; a #fragment must name an id (or an
<a name>) in the page it points to. Links with a scheme (https:, mailto:
...) leave the tree and are not checked. Exits 1 and lists the broken links.
"""
import html.parser
import os
import sys
import urllib.parse


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []
        self.anchors = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name == 'id' or (tag == 'a' and name == 'name'):
                self.anchors.add(value)
            elif name in ('href', 'src'):
                self.links.append(value)


def main(root):
    root = os.path.realpath(root)
    pages = {}
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith('.html'):
                path = os.path.join(d, f)
                p = Page()
                with open(path, encoding='utf-8') as fh:
                    p.feed(fh.read())
                pages[path] = p
    if not pages:
        print(f'check-links: no HTML pages under {root}', file=sys.stderr)
        return 1
    broken = []
    n = 0
    for path, page in sorted(pages.items()):
        for link in page.links:
            url = urllib.parse.urlsplit(link)
            if url.scheme or url.netloc or link.startswith('//'):
                continue
            n += 1
            target = path
            if url.path:
                target = os.path.realpath(os.path.join(os.path.dirname(path),
                                                       urllib.parse.unquote(url.path)))
                if os.path.isdir(target):
                    target = os.path.join(target, 'index.html')
                if not (target == root or target.startswith(root + os.sep)):
                    broken.append((path, link, 'outside the tree'))
                    continue
                if not os.path.isfile(target):
                    broken.append((path, link, 'no such file'))
                    continue
            if url.fragment and target in pages:
                if urllib.parse.unquote(url.fragment) not in pages[target].anchors:
                    broken.append((path, link, 'no such anchor'))
    for path, link, why in broken:
        print(f'{os.path.relpath(path, root)}: {link}: {why}')
    print(f'check-links: {len(pages)} pages, {n} internal links, {len(broken)} broken')
    return 1 if broken else 0


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
